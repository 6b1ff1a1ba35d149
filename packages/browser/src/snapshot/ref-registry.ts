import { OpenLegionError } from '@openlegion/protocol';

/** What a ref points at: a Playwright aria ref (`e5`, `f1e3`) in one tab's current document. */
export interface RefTarget {
  tabId: number;
  /** Playwright's ref, resolved with `page.getByRef`. */
  ariaRef: string;
  role: string;
  name: string;
}

const REF_PATTERN = /^e[1-9]\d*$/;

/**
 * The refs handed to the model. Numbers are never reused within a session, so a ref from an
 * older page can never silently hit an element of a newer one: it is either live or stale.
 * A ref stays the same while its element lives (Playwright keeps its aria refs stable), so the
 * model can keep using refs across snapshots of one page.
 */
export class RefRegistry {
  private nextNumber = 1;
  private readonly live = new Map<string, RefTarget>();
  private readonly byAriaRef = new Map<number, Map<string, string>>();
  private readonly issued = new Set<string>();
  /** Per tab: the refs of the last snapshot the model saw (for `[new]` marks). */
  private readonly shown = new Map<number, ReadonlySet<string>>();

  /** The ref for a Playwright aria ref in a tab: the same one as long as the element lives. */
  refFor(tabId: number, ariaRef: string, role: string, name: string): string {
    const perTab = this.byAriaRef.get(tabId) ?? new Map<string, string>();
    this.byAriaRef.set(tabId, perTab);
    let ref = perTab.get(ariaRef);
    if (!ref) {
      ref = `e${this.nextNumber++}`;
      perTab.set(ariaRef, ref);
      this.issued.add(ref);
    }
    this.live.set(ref, { tabId, ariaRef, role, name });
    return ref;
  }

  /** After a full snapshot of a tab: refs of that tab not in it (elements gone) become stale. */
  keepOnly(tabId: number, refs: ReadonlySet<string>): void {
    for (const [ref, target] of this.live) {
      if (target.tabId === tabId && !refs.has(ref)) this.live.delete(ref);
    }
  }

  /**
   * Record what the model was shown; returns the refs new since the tab's previous snapshot
   * (empty for the first snapshot of a document: everything is new, marking it all is noise).
   */
  markShown(tabId: number, refs: ReadonlySet<string>, options: { partial?: boolean } = {}): Set<string> {
    const newRefs = this.newSinceShown(tabId, refs);
    // A partial capture (one element or frame) saw only part of the page: add to what was seen.
    const before = this.shown.get(tabId);
    this.shown.set(tabId, options.partial && before ? new Set([...before, ...refs]) : refs);
    return newRefs;
  }

  /** Refs not in the last snapshot the model saw of this tab (nothing if it saw none yet). */
  newSinceShown(tabId: number, refs: ReadonlySet<string>): Set<string> {
    const before = this.shown.get(tabId);
    if (!before) return new Set();
    return new Set([...refs].filter((ref) => !before.has(ref)));
  }

  /** A new document in a tab (navigation, reload, crash) or a closed tab: all its refs go stale. */
  clearTab(tabId: number): void {
    for (const [ref, target] of this.live) if (target.tabId === tabId) this.live.delete(ref);
    this.byAriaRef.delete(tabId);
    this.shown.delete(tabId);
  }

  /** Everything goes stale (the browser was relaunched). */
  clearAll(): void {
    this.live.clear();
    this.byAriaRef.clear();
    this.shown.clear();
  }

  /** Whether the tab has a snapshot the model saw (its refs are usable). */
  hasSnapshot(tabId: number): boolean {
    return this.shown.has(tabId);
  }

  /** The live target of a ref, or a `BROWSER_STALE_REF` / `BROWSER_REF_UNKNOWN` error. */
  resolve(ref: string): RefTarget {
    const target = this.live.get(ref);
    if (target) return target;
    throw this.issued.has(ref) ? staleRef(ref) : unknownRef(ref);
  }

  /** Mark one ref stale (Playwright could not find its element any more). */
  forget(ref: string): void {
    this.live.delete(ref);
  }
}

/** The error for a ref whose element is gone or whose page has navigated. */
export function staleRef(ref: string): OpenLegionError {
  return new OpenLegionError(
    'BROWSER_STALE_REF',
    `ref ${ref} is from an older snapshot — take a new snapshot`,
    { details: { ref } },
  );
}

function unknownRef(ref: string): OpenLegionError {
  const hint = REF_PATTERN.test(ref)
    ? 'no snapshot gave out that ref'
    : 'refs look like e12 (a CSS selector goes in the selector field)';
  return new OpenLegionError(
    'BROWSER_REF_UNKNOWN',
    `ref ${ref} is unknown: ${hint} — take a snapshot and use its refs`,
    {
      details: { ref },
    },
  );
}
