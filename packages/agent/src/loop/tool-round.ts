import type { AgentTool, ChatEvent, ToolContent, ToolResult } from '@openlegion/protocol';
import { fenceUntrusted, stripInvisible } from '@openlegion/protocol';
import type { ToolApprovalGate } from '../approvals/tool-approval-gate.js';
import type { StoredMessage } from '../conversation-store.js';
import type { RequestedToolCall } from './llm-stream.js';
import { LOOP_BLOCK_AT, LOOP_END_AT, type LoopDetector } from './loop-detector.js';
import { parseArgumentsJson, validateArguments } from './tool-arguments.js';

/** Tool output beyond this is cut before it reaches the model (tools should page their output). */
export const TOOL_OUTPUT_MAX_CHARS = 60_000;
/** What a `tool_result` event shows the user of a long output. */
const EVENT_OUTPUT_MAX_CHARS = 4_000;

export interface ToolRoundDeps {
  tools: ReadonlyMap<string, AgentTool>;
  detector: LoopDetector;
  workspace: string;
  emit: (event: ChatEvent) => void;
  signal: AbortSignal;
  traceId?: string | undefined;
  conversationId?: string | undefined;
  /** Tools that ask first: a matching call waits here for the operator before it runs. */
  approval?: ToolApprovalGate | undefined;
}

/** What a round of tool calls gives the conversation. */
export interface ToolRoundOutcome {
  /** One `tool` message per call, in call order. */
  toolMessages: Extract<StoredMessage, { role: 'tool' }>[];
  /** Images the tools returned, for a user message after the tool messages (multimodal). */
  images: Extract<ToolContent, { type: 'image' }>[];
  /** Set when a call was repeated so often that the turn must end. */
  loop?: { name: string; count: number };
}

/**
 * Run the tool calls of one model answer, concurrently, and give back their results in call order.
 * Bad JSON, unknown tools and invalid arguments come back as error results the model can act on;
 * the loop detector warns on repeated identical calls, then blocks them, then ends the turn.
 */
export async function runToolRound(
  deps: ToolRoundDeps,
  calls: readonly RequestedToolCall[],
): Promise<ToolRoundOutcome> {
  const planned = calls.map((call) => planCall(deps, call));
  const results = await Promise.all(planned.map((plan) => plan()));
  const outcome: ToolRoundOutcome = { toolMessages: [], images: [] };
  results.forEach((result, index) => {
    const call = calls[index] as RequestedToolCall; // results and calls have the same length
    const { text, images } = renderResult(call.name, result.result);
    outcome.images.push(...images);
    outcome.toolMessages.push({ role: 'tool', tool_call_id: call.id, content: text });
    if (result.loopCount !== undefined) outcome.loop = { name: call.name, count: result.loopCount };
  });
  return outcome;
}

interface CallResult {
  result: ToolResult;
  loopCount?: number;
}

/** Checks a call in order (so loop counts follow call order) and returns how to run it. */
function planCall(deps: ToolRoundDeps, call: RequestedToolCall): () => Promise<CallResult> {
  const json = parseArgumentsJson(call.arguments);
  deps.emit({
    type: 'tool_start',
    id: call.id,
    name: call.name,
    input: json.ok ? json.value : call.arguments,
  });
  const finish = (result: ToolResult, loopCount?: number): (() => Promise<CallResult>) => {
    return async () => {
      emitResult(deps, call.id, result);
      return loopCount === undefined ? { result } : { result, loopCount };
    };
  };
  const { verdict, count } = deps.detector.check(call.name, json.ok ? json.value : call.arguments);
  if (verdict === 'end') {
    return finish(
      errorResult(`${call.name} was called ${count} times with the same arguments; the turn ends here.`),
      count,
    );
  }
  if (verdict === 'block') {
    return finish(
      errorResult(
        `Blocked: ${call.name} was already called ${count - 1} times with these same arguments and will not run ` +
          `again. Try a different approach, or answer with what you have.`,
      ),
    );
  }
  if (!json.ok) return finish(errorResult(json.error));
  const tool = deps.tools.get(call.name);
  if (tool === undefined) {
    return finish(
      errorResult(
        `there is no tool named "${call.name}"; available: ${[...deps.tools.keys()].join(', ') || 'none'}`,
      ),
    );
  }
  const valid = validateArguments(tool, json.value);
  if (!valid.ok) return finish(errorResult(valid.error));
  if (verdict === 'warn') {
    deps.emit({
      type: 'notice',
      message: `loop detector: ${call.name} called ${count} times with the same arguments`,
    });
  }
  return async () => {
    const refused = await deps.approval?.check(
      { name: call.name, input: valid.input },
      { signal: deps.signal, emit: deps.emit, traceId: deps.traceId },
    );
    if (refused) {
      emitResult(deps, call.id, refused);
      return { result: refused };
    }
    let result = await runTool(deps, tool, valid.input);
    if (verdict === 'warn') result = withWarning(result, call.name, count);
    emitResult(deps, call.id, result);
    return { result };
  };
}

async function runTool(deps: ToolRoundDeps, tool: AgentTool, input: unknown): Promise<ToolResult> {
  try {
    return await tool.run(input, {
      workspace: deps.workspace,
      signal: deps.signal,
      ...(deps.traceId ? { traceId: deps.traceId } : {}),
      ...(deps.conversationId ? { conversationId: deps.conversationId } : {}),
      notice: (message) => deps.emit({ type: 'notice', message: `${tool.name}: ${message}` }),
    });
  } catch (error) {
    deps.signal.throwIfAborted();
    const reason = error instanceof Error ? error.message : String(error);
    return errorResult(`${tool.name} failed: ${reason}`);
  }
}

function withWarning(result: ToolResult, name: string, count: number): ToolResult {
  const warning =
    `[loop detector] You have called ${name} ${count} times with these same arguments. If it is not ` +
    `working, change approach: at ${LOOP_BLOCK_AT} the call is blocked, at ${LOOP_END_AT} the turn ends.`;
  return { ...result, content: [...result.content, { type: 'text', text: warning }] };
}

function errorResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function emitResult(deps: ToolRoundDeps, id: string, result: ToolResult): void {
  const text = stripInvisible(textOf(result));
  const output = text.length > EVENT_OUTPUT_MAX_CHARS ? `${text.slice(0, EVENT_OUTPUT_MAX_CHARS)}…` : text;
  deps.emit({ type: 'tool_result', id, output, is_error: result.isError === true });
}

function textOf(result: ToolResult): string {
  return result.content
    .map((part) =>
      part.type === 'text'
        ? part.text
        : `[image ${part.mimeType}, ${Math.round((part.data.length * 3) / 4 / 1024)} KB: shown to you in the next message]`,
    )
    .join('\n');
}

/** The tool message's text (fenced as untrusted, capped) and the images to show separately. */
function renderResult(
  name: string,
  result: ToolResult,
): { text: string; images: Extract<ToolContent, { type: 'image' }>[] } {
  let text = textOf(result);
  if (text.length > TOOL_OUTPUT_MAX_CHARS) {
    text = `${text.slice(0, TOOL_OUTPUT_MAX_CHARS)}\n[… ${text.length - TOOL_OUTPUT_MAX_CHARS} more characters cut; ask for less at a time]`;
  }
  const fenced = fenceUntrusted(`tool ${name}`, text);
  const images = result.content.filter(
    (part): part is Extract<ToolContent, { type: 'image' }> => part.type === 'image',
  );
  return { text: result.isError ? `Error: ${fenced}` : fenced, images };
}
