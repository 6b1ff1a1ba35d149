import { type ChatEvent, OpenLegionError, type ToolContent } from '@openlegion/protocol';
import type { ToolApprovalGate } from '../approvals/tool-approval-gate.js';
import type { ContextRequest, LlmMessage } from '../context/context-manager.js';
import type { StoredMessage } from '../conversation-store.js';
import type { TurnToolset } from '../tool-registry/turn-toolset.js';
import type { RequestedToolCall } from './llm-stream.js';
import { LoopDetector } from './loop-detector.js';
import { callModel, type ModelCallDeps } from './model-call.js';
import { SilentReplyGate } from './silent-reply.js';
import { toolDefinition } from './tool-arguments.js';
import { runToolRound } from './tool-round.js';

export interface TurnRunnerDeps extends ModelCallDeps {
  model: string;
  workspace: string;
  /**
   * The model a struggling turn moves to once (mesh.yaml `loop.escalate`: the `complex` tier), with
   * a new allowance of rounds, when it used up its rounds or repeated a call; none: it ends as usual.
   */
  escalateTo?: string;
  /** Tools that ask first (mesh.yaml `agents.NAME.approval`); none when absent. */
  approval?: ToolApprovalGate;
}

/** The tier alias the host resolves to `llm.tiers.complex`. */
export const ESCALATION_MODEL = 'complex';

/** Everything one turn needs, decided before it starts. */
export interface TurnPlan {
  conversationId: string;
  traceId?: string | undefined;
  systemPrompt: string;
  /** The stored conversation before this turn. */
  history: readonly StoredMessage[];
  userMessage: string;
  /** The tools the model may call this turn, and those each call offers (on demand or all). */
  tools: TurnToolset;
  /** Tool rounds before the model must answer without tools. */
  maxRounds: number;
  /** The model this turn starts on (the conversation's `/model`); else the agent's. */
  model?: string;
  /** Messages steered into the turn since the last call (`POST /chat/steer`). */
  drainSteered?: () => string[];
}

/** A completed turn: its answer, and every message to store (tool rounds included). */
export interface TurnOutcome {
  text: string;
  messages: StoredMessage[];
}

/**
 * The tool loop of one turn: call the model; run the tools it asks for (concurrently, results in
 * call order); apply steered messages; repeat until it answers without tools. After `maxRounds`
 * rounds it is told to answer with what it has, and offered no tools. Throws on an LLM failure
 * or when the loop detector ends the turn; nothing is stored here (the caller stores a completed turn).
 */
export async function runTurn(
  deps: TurnRunnerDeps,
  plan: TurnPlan,
  emit: (event: ChatEvent) => void,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const toStore: StoredMessage[] = [{ role: 'user', content: plan.userMessage }];
  /** What the model sees this turn: the stored messages plus images and notes that are not kept. */
  const sent: LlmMessage[] = [...toStore];
  const keep = (message: StoredMessage) => {
    toStore.push(message);
    sent.push(message);
  };
  const detector = new LoopDetector();
  let rounds = 0;
  let toldToFinish = false;
  let model = plan.model ?? deps.model;
  /** Once per turn: move to the escalation model with a new allowance; false when there is none. */
  const escalate = (why: string): boolean => {
    if (deps.escalateTo === undefined || model === deps.escalateTo) return false;
    model = deps.escalateTo;
    rounds = 0;
    detector.reset();
    emit({ type: 'notice', message: `${why}; escalating this turn to the ${deps.escalateTo} tier` });
    return true;
  };
  for (;;) {
    if (rounds >= plan.maxRounds && !toldToFinish)
      escalate(`used all ${plan.maxRounds} tool rounds without an answer`);
    const exhausted = rounds >= plan.maxRounds;
    if (exhausted && !toldToFinish) {
      toldToFinish = true;
      emit({
        type: 'notice',
        message: `reached the limit of ${plan.maxRounds} tool rounds; asking for a final answer`,
      });
      sent.push({
        role: 'user',
        content: `[You have used all ${plan.maxRounds} tool rounds of this turn. Answer now with what you have; no more tool calls.]`,
      });
    }
    const request: ContextRequest = {
      conversationId: plan.conversationId,
      model,
      messages: [{ role: 'system', content: plan.systemPrompt }, ...plan.history, ...sent],
      emit,
      signal,
      ...(plan.traceId ? { traceId: plan.traceId } : {}),
    };
    const gate = new SilentReplyGate(emit);
    // Asked anew each call: a tool_search in the last round adds schemas, after those already sent.
    const definitions = exhausted ? [] : plan.tools.offered().map(toolDefinition);
    const reply = await callModel(deps, { ...request, emit: gate.emit }, definitions);
    gate.finish();
    if (reply.toolCalls.length === 0 || exhausted) {
      keep({ role: 'assistant', content: reply.text });
      const steered = plan.drainSteered?.() ?? [];
      if (steered.length === 0) return { text: reply.text, messages: toStore };
      applySteered(steered, keep, emit);
      continue;
    }
    rounds += 1;
    const calls = reply.toolCalls.map(
      (call, index): RequestedToolCall => ({
        ...call,
        id: call.id || `call_${rounds}_${index}`,
      }),
    );
    keep({
      role: 'assistant',
      content: reply.text === '' ? null : reply.text,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    });
    const outcome = await runToolRound(
      {
        tools: plan.tools.permitted,
        detector,
        workspace: deps.workspace,
        emit,
        signal,
        traceId: plan.traceId,
        conversationId: plan.conversationId,
        approval: deps.approval,
      },
      calls,
    );
    for (const message of outcome.toolMessages) keep(message);
    // A permitted tool called before it was loaded ran all the same; from now on it is offered.
    for (const call of calls) if (plan.tools.permitted.has(call.name)) plan.tools.used(call.name);
    if (outcome.images.length > 0) sent.push(imageMessage(outcome.images));
    if (
      outcome.loop &&
      escalate(`${outcome.loop.name} was called ${outcome.loop.count} times with the same arguments`)
    ) {
      sent.push({
        role: 'user',
        content: `[${outcome.loop.name} gave the same result each time it was called with those arguments. Try another approach.]`,
      });
    } else if (outcome.loop) {
      throw new OpenLegionError(
        'AGENT_LOOP_DETECTED',
        `stopped: ${outcome.loop.name} was called ${outcome.loop.count} times with the same arguments`,
      );
    }
    applySteered(plan.drainSteered?.() ?? [], keep, emit);
  }
}

function applySteered(
  messages: string[],
  keep: (message: StoredMessage) => void,
  emit: (event: ChatEvent) => void,
) {
  for (const content of messages) {
    emit({ type: 'notice', message: 'steered: your message was added to the running turn' });
    keep({ role: 'user', content });
  }
}

/** Tool images go to the model as image parts of a user message (tool messages carry text only). */
function imageMessage(images: Extract<ToolContent, { type: 'image' }>[]): LlmMessage {
  return {
    role: 'user',
    content: [
      { type: 'text', text: 'The images the tool calls above returned:' },
      ...images.map((image) => ({
        type: 'image_url' as const,
        image_url: { url: `data:${image.mimeType};base64,${image.data}` },
      })),
    ],
  };
}
