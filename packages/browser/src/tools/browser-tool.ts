import {
  type AgentTool,
  isOpenLegionError,
  OpenLegionError,
  type ToolContext,
  type ToolResult,
  textResult,
} from '@openlegion/protocol';
import { z } from 'zod';
import { isBrowserGone } from '../session/browser-errors.js';
import type { BrowserSession } from '../session/browser-session.js';

/** A browser tool before the session wrapping: what it does with the running browser. */
export interface BrowserToolSpec<Input> {
  name: string;
  description: string;
  input: z.ZodType<Input>;
  run(input: Input, context: ToolContext): Promise<ToolResult | string>;
}

/**
 * The agent-facing tool: runs serialised on the session, with the browser up; notes (a relaunch
 * after a crash) lead the result; failures come back as `CODE: message` error results the model
 * can act on. A call the browser died under is retried once on a relaunched browser.
 */
export function browserTool<Input>(session: BrowserSession, spec: BrowserToolSpec<Input>): AgentTool<Input> {
  return {
    name: spec.name,
    group: 'browser',
    description: spec.description,
    input: spec.input,
    run: async (input, context) => {
      const attempt = () =>
        session.run(async () => {
          // A call cancelled while it waited for the one before it does not start.
          if (context.signal.aborted)
            throw new OpenLegionError('BROWSER_ACTION_FAILED', `${spec.name} was cancelled`);
          session.workspace = context.workspace;
          return spec.run(input, context);
        });
      let result: ToolResult;
      try {
        result = asResult(
          await attempt().catch((error: unknown) =>
            isBrowserGone(error) ? attempt() : Promise.reject(error),
          ),
        );
      } catch (error) {
        result = textResult(errorText(error), true);
      }
      return withNotes(result, session.takeNotes());
    },
  };
}

function asResult(value: ToolResult | string): ToolResult {
  return typeof value === 'string' ? textResult(value) : value;
}

function withNotes(result: ToolResult, notes: string[]): ToolResult {
  if (!notes.length) return result;
  return { ...result, content: [{ type: 'text', text: notes.join('\n') }, ...result.content] };
}

/** `CODE: message` — the form the model (and the stale-ref text) sees. */
export function errorText(error: unknown): string {
  if (isOpenLegionError(error)) return `${error.code}: ${error.message}`;
  if (isBrowserGone(error)) {
    return 'BROWSER_LAUNCH_FAILED: the browser went away during this call; the next call starts it again';
  }
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
  return `BROWSER_ACTION_FAILED: ${message}`;
}

/** The element an action goes to. */
export const targetFields = {
  ref: z.string().min(1).optional().describe('Ref of the element from the latest browser_snapshot, e.g. e12'),
  selector: z
    .string()
    .min(1)
    .optional()
    .describe('CSS selector, only when the element has no ref (prefer refs)'),
};

/** Refuse input with neither (or both) of ref and selector. */
export function oneTarget<T extends { ref?: string | undefined; selector?: string | undefined }>(
  value: T,
): boolean {
  return (value.ref === undefined) !== (value.selector === undefined);
}

export const ONE_TARGET_MESSAGE = 'give exactly one of ref (preferred) or selector';
