import { type Clock, systemClock } from '@openlegion/infra/clock';
import type { AgentSelf, AgentTool, ChatEvent, HeartbeatResponse } from '@openlegion/protocol';
import { stripInvisible } from '@openlegion/protocol';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { ToolApprovalGate } from '../approvals/tool-approval-gate.js';
import type { ContextManager } from '../context/context-manager.js';
import { FAST_TIER_MODEL, isUnavailable } from '../context/fast-tier.js';
import type { ConversationStore } from '../conversation-store.js';
import { type MemoryRecall, recallEvent, withRecallBlock } from '../memory-recall/index.js';
import { type Directives, parseDirectives } from '../prompt/directives.js';
import type { TurnKind } from '../prompt/system-prompt.js';
import type { SkillSnapshot } from '../skills/index.js';
import { ToolLoader } from '../tool-registry/turn-toolset.js';
import type { InstructionSource } from '../workspace/operator-instructions.js';
import { applyModelDirective, MODEL_REFUSALS, refuseModel } from './conversation-model.js';
import { probeHeartbeat } from './heartbeat-probe.js';
import { proxyErrorCode } from './llm-failure.js';
import type { MessageClassifier } from './message-classifier.js';
import { LlmCallFailedError } from './model-call.js';
import { isSilentReply } from './silent-reply.js';
import { errorEvent, toTurnError } from './turn-errors.js';
import { ESCALATION_MODEL, runTurn, type TurnPlan, type TurnRunnerDeps } from './turn-runner.js';
import { setUpTurn, TruncationNotices } from './turn-setup.js';

/** One turn as the server hands it over. */
export interface TurnInput {
  message: string;
  conversationId: string;
  /** Where the work entered the mesh; sent with each LLM call so the host's trace shows it. */
  traceId?: string;
  /** Messages steered into this turn since the last call (`POST /chat/steer`). */
  drainSteered?: () => string[];
}

export interface TaskInput extends TurnInput {
  /** Tool rounds allowed (the request's `max_iterations`); else mesh.yaml `loop.max_task_iterations`. */
  maxIterations?: number;
}

export interface HeartbeatInput {
  pendingMessages: number;
  pendingEvents: number;
  traceId?: string;
}

export type EmitChatEvent = (event: ChatEvent) => void;

/** The agent's turns; the server owns transport, concurrency and auth. */
export interface AgentLoop {
  /** A chat turn: events stream through `emit`, ending in `done` or `error`; nothing after an abort. */
  runChat(turn: TurnInput, emit: EmitChatEvent, signal: AbortSignal): Promise<void>;
  /** A task (`POST /task`): the same events, with the task's iteration cap. */
  runTask(task: TaskInput, emit: EmitChatEvent, signal: AbortSignal): Promise<void>;
  /**
   * A heartbeat: free probes first; the LLM only when something is actionable. Its events go to
   * `emit` when given (the server counts them as progress); the answer is the JSON response.
   */
  runHeartbeat(beat: HeartbeatInput, signal: AbortSignal, emit?: EmitChatEvent): Promise<HeartbeatResponse>;
}

export interface AgentLoopDeps {
  self: AgentSelf;
  store: ConversationStore;
  /** The SDK client pointed at the host's `/v1` proxy; asked once per call, so it may load lazily. */
  llm: () => Promise<OpenAI>;
  contextManager: ContextManager;
  /** The tools this agent may use (mesh.yaml `tools` already applied). */
  tools: readonly AgentTool[];
  /** `<AGENT_DATA_DIR>/workspace`, scaffolded. */
  workspace: string;
  /** The operator's AGENTS.md and SOUL.md (from the host, never the workspace), asked every turn. */
  instructions: InstructionSource;
  logger: Logger;
  /** The skills this agent sees (bundled, fleet, workspace); read each turn. None when absent. */
  skills?: () => Promise<SkillSnapshot>;
  /** Automatic recall before each turn; none in tests that are not about memory. */
  recall?: MemoryRecall;
  clock?: Clock;
  /** Tools that ask first (mesh.yaml `agents.NAME.approval`); none when absent. */
  approval?: ToolApprovalGate;
  /** `loop.classify`: a chat message classified on the fast tier picks the turn's tier. */
  classify?: MessageClassifier;
  retryDelaysMs?: readonly number[];
  streamIdleTimeoutMs?: number;
}

/** The conversation heartbeats run in. */
export const HEARTBEAT_CONVERSATION_ID = 'heartbeat';

type TurnResult = { text: string; silent: boolean };

/**
 * The agent loop in its three modes. A turn is stored (user message, tool rounds, answer) only
 * when it completes, so a failed, aborted or crashed turn leaves the conversation as it was.
 */
export function createAgentLoop(deps: AgentLoopDeps): AgentLoop {
  const clock = deps.clock ?? systemClock;
  const runner: TurnRunnerDeps = {
    llm: deps.llm,
    contextManager: deps.contextManager,
    clock,
    logger: deps.logger,
    model: deps.self.model,
    workspace: deps.workspace,
    ...(deps.self.loop.escalate ? { escalateTo: ESCALATION_MODEL } : {}),
    ...(deps.retryDelaysMs ? { retryDelaysMs: deps.retryDelaysMs } : {}),
    ...(deps.approval ? { approval: deps.approval } : {}),
    ...(deps.streamIdleTimeoutMs ? { streamIdleTimeoutMs: deps.streamIdleTimeoutMs } : {}),
  };
  const notices = new TruncationNotices();
  const loader = new ToolLoader();

  const execute = async (
    kind: TurnKind,
    input: TurnInput & { directives: Directives; maxRounds: number },
    emit: EmitChatEvent,
    signal: AbortSignal,
  ): Promise<TurnResult> => {
    const { conversationId, directives } = input;
    const log = deps.logger.child({ conversation: conversationId, kind });
    const startedMs = clock.now();
    const history = deps.store.list(conversationId);
    const { systemPrompt, tools } = await setUpTurn(
      {
        self: deps.self,
        workspace: deps.workspace,
        instructions: deps.instructions,
        tools: deps.tools,
        kind,
        directives,
        conversationId,
        history,
        loader,
        skills: deps.skills,
        nowMs: startedMs,
        emit,
      },
      notices,
    );
    const turnModel = applyModelDirective(
      deps.store,
      conversationId,
      deps.self.model,
      directives.model,
      emit,
    );
    if (directives.compact) {
      const messages = [{ role: 'system' as const, content: systemPrompt }, ...history];
      await deps.contextManager.compact(
        { conversationId, model: turnModel.model, messages, emit, signal },
        'directive',
      );
      if (directives.message.trim() === '') return { text: '', silent: true };
    }
    // `/model NAME` alone only switches (or shows) the model.
    if (directives.model && directives.message.trim() === '') return { text: '', silent: true };
    // After a /compact, so memories the compaction took out of view may come back.
    const recalled = await deps.recall?.recall({
      conversationId,
      ...(input.traceId !== undefined ? { traceId: input.traceId } : {}),
      message: directives.message,
      systemPrompt,
      history,
    });
    const recallReport = recalled && recalled.budgetChars > 0 ? recallEvent(recalled) : undefined;
    // Seed 004: a simple chat message is answered on the fast tier; a /model choice wins.
    const classified =
      kind === 'chat' && deps.classify && turnModel.model === deps.self.model
        ? await deps.classify(directives.message, signal, input.traceId)
        : undefined;
    const onFastTier = classified?.complexity === 'simple';
    if (classified)
      log.info({ classified, model: onFastTier ? FAST_TIER_MODEL : turnModel.model }, 'message classified');
    if (recallReport) log.debug({ recall: recallReport }, 'memory recalled');
    const plan: TurnPlan = {
      conversationId,
      traceId: input.traceId,
      systemPrompt,
      history,
      userMessage: withRecallBlock(directives.message, recalled),
      tools,
      maxRounds: input.maxRounds,
      model: onFastTier ? FAST_TIER_MODEL : turnModel.model,
      ...(input.drainSteered ? { drainSteered: steeredWithoutInvisible(input.drainSteered) } : {}),
    };
    try {
      const outcome = await runTurn(runner, plan, emit, signal).catch((error: unknown) => {
        // The fast tier the classifier chose is unavailable: the turn runs on the agent's model
        // (dearer: logged, and its cost is the default model's in the host's costs).
        if (
          onFastTier &&
          !signal.aborted &&
          error instanceof LlmCallFailedError &&
          isUnavailable(error.cause)
        ) {
          log.warn({ err: error }, "fast tier unavailable; the turn runs on the agent's model");
          return runTurn(runner, { ...plan, model: deps.self.model }, emit, signal);
        }
        // A provider/model the host refuses (not this agent's to call, no such provider or model):
        // refused on the turn's first call (the same model until an escalation to a tier), so
        // nothing ran yet; the switch is dropped and the turn runs on mesh.yaml's model.
        const refusal = turnModel.unchecked ? modelRefusal(error) : undefined;
        if (refusal === undefined) throw error;
        refuseModel(
          deps.store,
          conversationId,
          { model: turnModel.model, ...refusal },
          deps.self.model,
          emit,
        );
        return runTurn(runner, { ...plan, model: deps.self.model }, emit, signal);
      });
      deps.store.append(conversationId, outcome.messages);
      // Reported once the turn has answered: an event before the first output would commit the
      // host's HTTP answer to a stream, and a turn that fails early must still answer with its status.
      if (recallReport) emit(recallReport);
      log.info({ ms: clock.now() - startedMs, messages: outcome.messages.length }, 'turn done');
      return { text: outcome.text, silent: isSilentReply(outcome.text) };
    } catch (error) {
      const ms = clock.now() - startedMs;
      if (signal.aborted) log.info({ ms }, 'turn aborted');
      else log.warn({ err: error, ms }, 'turn failed');
      throw error;
    }
  };

  const streamTurn = async (
    kind: TurnKind,
    input: TurnInput & { maxRounds: number },
    emit: EmitChatEvent,
    signal: AbortSignal,
  ) => {
    try {
      const result = await execute(
        kind,
        { ...input, directives: parseDirectives(stripInvisible(input.message)) },
        emit,
        signal,
      );
      emit({ type: 'done', conversation_id: input.conversationId, text: result.silent ? '' : result.text });
    } catch (error) {
      if (signal.aborted) return; // the client is gone: no event, nothing stored
      emit(errorEvent(toTurnError(error, await tokenOf(deps))));
    }
  };

  return {
    runChat: (turn, emit, signal) =>
      streamTurn('chat', { ...turn, maxRounds: deps.self.loop.max_tool_rounds }, emit, signal),
    runTask: (task, emit, signal) =>
      streamTurn(
        'task',
        { ...task, maxRounds: task.maxIterations ?? deps.self.loop.max_task_iterations },
        emit,
        signal,
      ),
    async runHeartbeat(beat, signal, emit = () => {}) {
      const probe = await probeHeartbeat(deps.workspace, {
        messages: beat.pendingMessages,
        events: beat.pendingEvents,
      });
      if (!probe.actionable) return { ran: false, reason: probe.reason, reply: '', silent: true };
      const message = [
        `Heartbeat. Pending: ${beat.pendingMessages} message(s), ${beat.pendingEvents} event(s).`,
        probe.checklist && `HEARTBEAT.md:\n${probe.checklist}`,
      ]
        .filter(Boolean)
        .join('\n\n');
      const result = await execute(
        'heartbeat',
        {
          message,
          conversationId: HEARTBEAT_CONVERSATION_ID,
          ...(beat.traceId ? { traceId: beat.traceId } : {}),
          directives: { ...parseDirectives(''), message },
          maxRounds: deps.self.loop.max_tool_rounds,
        },
        emit,
        signal,
      ).catch(async (error: unknown) => {
        throw toTurnError(error, await tokenOf(deps));
      });
      const silent = result.silent || result.text.trim() === '';
      return { ran: true, reason: probe.reason, reply: silent ? '' : result.text, silent };
    },
  };
}

/** The host's code and words when it refused the model itself (not the call); else undefined. */
function modelRefusal(error: unknown): { code: string; reason: string } | undefined {
  if (!(error instanceof LlmCallFailedError)) return undefined;
  const code = proxyErrorCode(error.cause);
  if (code === undefined || !MODEL_REFUSALS.has(code)) return undefined;
  // The SDK's message starts with the status ("403 agent … may not call …").
  return { code, reason: error.message.replace(/^\d{3}\s+/, '') };
}

async function tokenOf(deps: AgentLoopDeps): Promise<string> {
  return (await deps.llm().catch(() => undefined))?.apiKey ?? '';
}

/**
 * Messages may come from channels and other agents: invisible characters (bidi overrides,
 * zero-width, tag characters) are removed before they enter a prompt, as with tool output.
 */
function steeredWithoutInvisible(drain: () => string[]): () => string[] {
  return () => drain().map(stripInvisible);
}
