import { OpenLegionError } from '@openlegion/protocol';
import type { Locator } from 'playwright-core';
import type { BrowserSession, Tab } from '../session/browser-session.js';
import { staleRef } from '../snapshot/ref-registry.js';

/** Where an action goes: a ref from the latest snapshot, or a CSS selector as a fallback. */
export interface TargetInput {
  ref?: string | undefined;
  selector?: string | undefined;
}

/** A resolved element, with a label the result names it by. */
export interface ResolvedTarget {
  tab: Tab;
  locator: Locator;
  /** `e12 (button "Sign in")` or `selector #login`. */
  label: string;
}

/**
 * Find the element of a ref or selector. A ref whose element has gone (the page changed since the
 * snapshot) is `BROWSER_STALE_REF`; a selector matching nothing is `BROWSER_REF_UNKNOWN`.
 */
export async function resolveTarget(session: BrowserSession, input: TargetInput): Promise<ResolvedTarget> {
  if (input.ref) {
    const ref = input.ref
      .trim()
      .replace(/^\[|\]$/g, '')
      .replace(/^ref=/, '');
    const target = session.refs.resolve(ref);
    const tab = session.tab(target.tabId);
    const locator = tab.page.getByRef(target.ariaRef);
    if ((await locator.count()) === 0) {
      session.refs.forget(ref);
      throw staleRef(ref);
    }
    const name = target.name ? ` ${JSON.stringify(target.name.slice(0, 80))}` : '';
    return { tab, locator, label: `${ref} (${target.role}${name})` };
  }
  if (input.selector) {
    const tab = await session.activeTab();
    const all = tab.page.locator(input.selector);
    const count = await all.count().catch((cause: unknown) => {
      throw new OpenLegionError('BROWSER_REF_UNKNOWN', `selector ${input.selector} is not valid CSS`, {
        cause,
      });
    });
    if (count === 0) {
      throw new OpenLegionError(
        'BROWSER_REF_UNKNOWN',
        `selector ${input.selector} matches nothing on ${tab.page.url()} — take a snapshot and use a ref`,
        { details: { selector: input.selector } },
      );
    }
    const which = count > 1 ? ` (first of ${count})` : '';
    return { tab, locator: all.first(), label: `selector ${input.selector}${which}` };
  }
  throw new OpenLegionError('REQUEST_INVALID', 'give ref (from the latest snapshot) or selector');
}
