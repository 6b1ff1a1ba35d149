import type { AgentTool } from '@openlegion/protocol';
import type { Locator } from 'playwright-core';
import { z } from 'zod';
import { reportAction } from '../actions/action-report.js';
import { type ResolvedTarget, resolveTarget, type TargetInput } from '../actions/resolve-target.js';
import { workspacePath } from '../screenshot/workspace-file.js';
import { actionError } from '../session/browser-errors.js';
import type { BrowserSession } from '../session/browser-session.js';
import { browserTool, ONE_TARGET_MESSAGE, oneTarget, targetFields } from './browser-tool.js';

/**
 * Act on one element and report what changed; Playwright failures name the element.
 * `[done, attempt]`: "clicked" for the result, "click" for an error ("could not click e4 …").
 */
async function act(
  session: BrowserSession,
  input: TargetInput,
  [done, attempt]: [string, string],
  action: (target: ResolvedTarget) => Promise<unknown>,
): Promise<string> {
  const target = await resolveTarget(session, input);
  return reportAction(session, target.tab, `${done} ${target.label}`, () =>
    action(target).catch((error: unknown) => {
      throw actionError(error, `${attempt} ${target.label}`, session.actionTimeoutMs);
    }),
  );
}

const target = z.object(targetFields).refine(oneTarget, ONE_TARGET_MESSAGE);

/** Click, type, press, select, check, hover, scroll, drag and upload. */
export function elementTools(session: BrowserSession): AgentTool[] {
  const tools = [
    browserTool(session, {
      name: 'browser_click',
      description:
        'Click an element by ref (from browser_snapshot). The result says what changed: new URL, dialogs, new tab, new elements.',
      input: z
        .object({
          ...targetFields,
          double: z.boolean().default(false),
          button: z.enum(['left', 'right', 'middle']).default('left'),
        })
        .refine(oneTarget, ONE_TARGET_MESSAGE),
      run: (input) =>
        act(session, input, [input.double ? 'double-clicked' : 'clicked', 'click'], ({ locator }) =>
          input.double ? locator.dblclick({ button: input.button }) : locator.click({ button: input.button }),
        ),
    }),
    browserTool(session, {
      name: 'browser_type',
      description:
        'Put text into a text field by ref (replaces its content). submit=true presses Enter afterwards; ' +
        'slowly=true types key by key (for fields that react to each key).',
      input: z
        .object({
          ...targetFields,
          text: z.string(),
          submit: z.boolean().default(false),
          slowly: z.boolean().default(false),
        })
        .refine(oneTarget, ONE_TARGET_MESSAGE),
      run: (input) =>
        act(
          session,
          input,
          [`typed ${input.text.length} characters into`, 'type into'],
          async ({ locator }) => {
            if (input.slowly) {
              await locator.fill('');
              await locator.pressSequentially(input.text);
            } else {
              await locator.fill(input.text);
            }
            if (input.submit) await locator.press('Enter');
          },
        ),
    }),
    browserTool(session, {
      name: 'browser_press',
      description:
        'Press a key or chord (Enter, Escape, ArrowDown, Control+A) on an element by ref, or on the page.',
      input: z.object({ key: z.string().min(1), ...targetFields }),
      run: async (input) => {
        if (input.ref || input.selector) {
          return act(session, input, [`pressed ${input.key} on`, `press ${input.key} on`], ({ locator }) =>
            locator.press(input.key),
          );
        }
        const tab = await session.activeTab();
        return reportAction(session, tab, `pressed ${input.key}`, () =>
          tab.page.keyboard.press(input.key).catch((error: unknown) => {
            throw actionError(error, `press ${input.key}`, session.actionTimeoutMs);
          }),
        );
      },
    }),
    browserTool(session, {
      name: 'browser_select',
      description: 'Choose options of a select (combobox/listbox) by ref, by their labels or values.',
      input: z
        .object({ ...targetFields, values: z.array(z.string()).min(1) })
        .refine(oneTarget, ONE_TARGET_MESSAGE),
      run: (input) =>
        act(session, input, [`selected ${JSON.stringify(input.values)} in`, 'select in'], ({ locator }) =>
          selectByLabelOrValue(locator, input.values),
        ),
    }),
    browserTool(session, {
      name: 'browser_check',
      description: 'Check or uncheck a checkbox, radio button or switch by ref.',
      input: z
        .object({ ...targetFields, checked: z.boolean().default(true) })
        .refine(oneTarget, ONE_TARGET_MESSAGE),
      run: (input) =>
        act(session, input, input.checked ? ['checked', 'check'] : ['unchecked', 'uncheck'], ({ locator }) =>
          locator.setChecked(input.checked),
        ),
    }),
    browserTool(session, {
      name: 'browser_hover',
      description: 'Move the mouse over an element by ref (opens hover menus and tooltips).',
      input: target,
      run: (input) => act(session, input, ['hovered over', 'hover over'], ({ locator }) => locator.hover()),
    }),
    browserTool(session, {
      name: 'browser_scroll',
      description:
        'Scroll the page, or inside an element given by ref. Without direction, scrolls the element into view.',
      input: z.object({
        ...targetFields,
        direction: z.enum(['up', 'down', 'left', 'right']).optional(),
        pixels: z.number().int().min(1).max(100_000).default(600),
      }),
      run: async (input) => {
        const [dx, dy] = delta(input.direction, input.pixels);
        if (input.ref || input.selector) {
          return act(session, input, ['scrolled', 'scroll'], ({ locator }) =>
            input.direction
              ? locator.evaluate((element, [x, y]) => element.scrollBy(x ?? 0, y ?? 0), [dx, dy])
              : locator.scrollIntoViewIfNeeded(),
          );
        }
        const tab = await session.activeTab();
        return reportAction(
          session,
          tab,
          `scrolled the page ${input.direction ?? 'down'} ${input.pixels}px`,
          () =>
            tab.page.evaluate(
              ([x, y]) => window.scrollBy(x ?? 0, y ?? 0),
              [dx, input.direction ? dy : input.pixels],
            ),
        );
      },
    }),
    browserTool(session, {
      name: 'browser_drag',
      description: 'Drag one element onto another, both by ref.',
      input: z.object({
        from_ref: z.string().optional(),
        from_selector: z.string().optional(),
        to_ref: z.string().optional(),
        to_selector: z.string().optional(),
      }),
      run: async (input) => {
        const to = await resolveTarget(session, { ref: input.to_ref, selector: input.to_selector });
        return act(
          session,
          { ref: input.from_ref, selector: input.from_selector },
          [`dragged onto ${to.label} the element`, `drag onto ${to.label} the element`],
          ({ locator }) => locator.dragTo(to.locator),
        );
      },
    }),
    browserTool(session, {
      name: 'browser_upload',
      description:
        'Upload workspace files through a file input (or the button that opens a file chooser), by ref.',
      input: z
        .object({
          ...targetFields,
          paths: z.array(z.string().min(1)).min(1).describe('Paths relative to the workspace'),
        })
        .refine(oneTarget, ONE_TARGET_MESSAGE),
      run: async (input) => {
        const files = await Promise.all(
          input.paths.map((file) => workspacePath(session.workspace, file, { mustExist: true })),
        );
        return act(
          session,
          input,
          [`uploaded ${input.paths.join(', ')} via`, 'upload via'],
          async ({ tab, locator }) => {
            const isFileInput = await locator.evaluate(
              (element) => element instanceof HTMLInputElement && element.type === 'file',
            );
            if (isFileInput) return locator.setInputFiles(files);
            const [chooser] = await Promise.all([tab.page.waitForEvent('filechooser'), locator.click()]);
            return chooser.setFiles(files);
          },
        );
      },
    }),
  ];
  return tools as AgentTool[];
}

/** Options are named by what the snapshot shows (labels); values work too. */
async function selectByLabelOrValue(locator: Locator, values: string[]): Promise<unknown> {
  const resolved = await locator.evaluate((element, wanted) => {
    if (!(element instanceof HTMLSelectElement)) return wanted;
    const options = [...element.options];
    return wanted.map((want) => {
      const byLabel = options.find((option) => option.label === want || option.text.trim() === want);
      return (byLabel ?? options.find((option) => option.value === want))?.value ?? want;
    });
  }, values);
  return locator.selectOption(resolved);
}

function delta(direction: 'up' | 'down' | 'left' | 'right' | undefined, pixels: number): [number, number] {
  switch (direction) {
    case 'up':
      return [0, -pixels];
    case 'left':
      return [-pixels, 0];
    case 'right':
      return [pixels, 0];
    default:
      return [0, pixels];
  }
}
