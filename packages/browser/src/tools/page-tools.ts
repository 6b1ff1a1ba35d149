import path from 'node:path';
import { type AgentTool, isOpenLegionError } from '@openlegion/protocol';
import { z } from 'zod';
import { reportAction } from '../actions/action-report.js';
import { resolveTarget } from '../actions/resolve-target.js';
import { defaultFileName, workspacePath } from '../screenshot/workspace-file.js';
import { actionError } from '../session/browser-errors.js';
import type { BrowserSession } from '../session/browser-session.js';
import { browserTool, targetFields } from './browser-tool.js';

const DEFAULT_TEXT_CHARS = 20_000;

/** Wait, get_text, pdf, download, and (when allowed) evaluate. */
export function pageTools(session: BrowserSession, allowEvaluate: boolean): AgentTool[] {
  const tools: AgentTool[] = [
    browserTool(session, {
      name: 'browser_wait',
      description:
        'Wait until an element (ref or selector) or a text appears (or disappears: state=hidden), or for a navigation.',
      input: z.object({
        ...targetFields,
        text: z.string().min(1).optional().describe('Text to wait for'),
        navigation: z.boolean().default(false).describe('Wait for the page to load a new document'),
        state: z.enum(['visible', 'hidden']).default('visible'),
        timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
      }),
      run: async (input) => {
        const tab = await session.activeTab();
        const options = { state: input.state, timeout: input.timeout_ms };
        const what = input.ref ?? input.selector ?? (input.text ? JSON.stringify(input.text) : 'navigation');
        return reportAction(
          session,
          tab,
          `waited for ${what}${input.state === 'hidden' ? ' to go' : ''}`,
          async () => {
            try {
              if (input.ref || input.selector) {
                const found = await resolveTarget(session, input).catch((error: unknown) => {
                  // An element that is gone is as hidden as it gets.
                  if (input.state === 'hidden' && isOpenLegionError(error)) return undefined;
                  throw error;
                });
                await found?.locator.waitFor(options);
              } else if (input.text) {
                await tab.page.getByText(input.text).first().waitFor(options);
              } else {
                await tab.page.waitForEvent('domcontentloaded', { timeout: input.timeout_ms });
              }
            } catch (error) {
              throw actionError(
                error,
                `see ${what}${input.state === 'hidden' ? ' go' : ''}`,
                input.timeout_ms,
              );
            }
          },
        );
      },
    }),
    browserTool(session, {
      name: 'browser_get_text',
      description: 'The visible text of an element (by ref) or of the whole page, for reading long content.',
      input: z.object({
        ...targetFields,
        max_chars: z.number().int().min(100).max(400_000).default(DEFAULT_TEXT_CHARS),
      }),
      run: async (input) => {
        const locator =
          input.ref || input.selector
            ? (await resolveTarget(session, input)).locator
            : (await session.activeTab()).page.locator('body');
        // biome-ignore lint/performance/useDomNodeTextContent: the visible text is what the model reads
        const text = (await locator.innerText()).replace(/\n{3,}/g, '\n\n').trim();
        if (text.length <= input.max_chars) return text || '(no visible text)';
        return `${text.slice(0, input.max_chars)}\n[truncated: ${input.max_chars} of ${text.length} chars; get_text a smaller element by ref]`;
      },
    }),
    browserTool(session, {
      name: 'browser_pdf',
      description: 'Save the active page as a PDF in the workspace.',
      input: z.object({ path: z.string().optional().describe('Workspace path; default pdfs/<time>.pdf') }),
      run: async (input) => {
        const tab = await session.activeTab();
        const relative = input.path ?? defaultFileName('pdfs', 'pdf');
        const file = await workspacePath(session.workspace, relative);
        await tab.page.pdf({ path: file, printBackground: true });
        return `saved ${path.relative(session.workspace, file)} (${tab.page.url()})`;
      },
    }),
    browserTool(session, {
      name: 'browser_download',
      description:
        'Download a file into the workspace (downloads/): click the link or button by ref, or give a URL.',
      input: z.object({ ...targetFields, url: z.string().min(1).optional() }),
      run: async (input) => {
        const tab = await session.activeTab();
        const start = async () => {
          if (input.url) {
            await tab.page.evaluate((href) => {
              const anchor = document.createElement('a');
              anchor.href = href;
              anchor.download = '';
              document.body.append(anchor);
              anchor.click();
              anchor.remove();
            }, input.url);
          } else {
            await (await resolveTarget(session, input)).locator.click();
          }
        };
        const what = input.url ?? input.ref ?? input.selector ?? 'download';
        return reportAction(session, tab, `download from ${what}`, async () => {
          await Promise.all([tab.page.waitForEvent('download'), start()]).catch((error: unknown) => {
            throw actionError(error, `download from ${what}`, session.actionTimeoutMs);
          });
        });
      },
    }),
  ];
  if (allowEvaluate) {
    tools.push(
      browserTool(session, {
        name: 'browser_evaluate',
        description:
          'Run a JavaScript expression in the page (or a function `(element) => …` on an element by ref) and get its JSON result. Prefer refs and the other tools.',
        input: z.object({ expression: z.string().min(1), ...targetFields }),
        run: async (input) => {
          const value =
            input.ref || input.selector
              ? // A string that reads as a function is called with the element.
                await (await resolveTarget(session, input)).locator.evaluate(input.expression)
              : await (await session.activeTab()).page.evaluate(input.expression);
          const text = JSON.stringify(value, null, 1) ?? 'undefined';
          return text.length > DEFAULT_TEXT_CHARS
            ? `${text.slice(0, DEFAULT_TEXT_CHARS)}\n[truncated]`
            : text;
        },
      }) as AgentTool,
    );
  }
  return tools;
}
