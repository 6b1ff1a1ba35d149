import { type Clock, systemClock } from '@openlegion/infra/clock';
import {
  type AgentSelf,
  type AgentTool,
  type ChatEvent,
  type HeartbeatResponse,
  OpenLegionError,
} from '@openlegion/protocol';
import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { ContextManager } from '../context/context-manager.js';
import type { ConversationStore } from '../conversation-store.js';
import { type Directives, parseDirectives } from '../prompt/directives.js';
import { buildSystemPrompt, type TurnKind } from '../prompt/system-prompt.js';
import { filterByProfile } from '../tool-registry/tool-profiles.js';
import { type BootstrapFile, loadBootstrapFiles } from '../workspace/bootstrap-files.js';
import { probeHeartbeat } from './heartbeat-probe.js';
import { describeLlmFailure } from './llm-failure.js';
import { LlmCallFailedError } from './model-call.js';
import { isSilentReply } from './silent-reply.js';
import { runTurn, type TurnRunnerDeps } from './turn-runner.js';

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
  /** A heartbeat: free probes first; the LLM only when something is actionable. */
  runHeartbeat(beat: HeartbeatInput, signal: AbortSignal): Promise<HeartbeatResponse>;
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
  logger: Logger;
  clock?: Clock;
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
    ...(deps.retryDelaysMs ? { retryDelaysMs: deps.retryDelaysMs } : {}),
    ...(deps.streamIdleTimeoutMs ? { streamIdleTimeoutMs: deps.streamIdleTimeoutMs } : {}),
  };
  /** Truncations already announced, per conversation, so a notice is not repeated every turn. */
  const announced = new Set<string>();

  const announceTruncations = (conversationId: string, files: BootstrapFile[], emit: EmitChatEvent) => {
    for (const file of files.filter((f) => f.truncated)) {
      const key = `${conversationId}\u0000${file.name}\u0000${file.chars}`;
      if (announced.has(key)) continue;
      announced.add(key);
      emit({
        type: 'notice',
        message:
          `${file.name} is ${file.chars} characters; the prompt carries ${file.text.length} (its start and ` +
          'end). The agent reads the rest with read_file.',
      });
    }
  };

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
    const systemMessage = (prompt: string) => [{ role: 'system' as const, content: prompt }, ...history];
    if (directives.compact) {
      await deps.contextManager.compact(
        { conversationId, model: deps.self.model, messages: systemMessage(''), emit, signal },
        'directive',
      );
      emit({ type: 'notice', message: 'conversation compacted' });
      if (directives.message.trim() === '') return { text: '', silent: true };
    }
    const files = await loadBootstrapFiles(deps.workspace, { reserved: deps.self.soul.length });
    announceTruncations(conversationId, files, emit);
    const tools = directives.profile ? filterByProfile(deps.tools, directives.profile) : [...deps.tools];
    const systemPrompt = buildSystemPrompt({
      self: deps.self,
      mode: directives.mode,
      files,
      toolNames: tools.map((tool) => tool.name),
      kind,
      think: directives.think,
      verbose: directives.verbose,
      reasoning: directives.reasoning,
      date: new Date(clock.now()).toISOString().slice(0, 10),
    });
    try {
      const outcome = await runTurn(
        runner,
        {
          conversationId,
          traceId: input.traceId,
          systemPrompt,
          history,
          userMessage: directives.message,
          tools,
          maxRounds: input.maxRounds,
          ...(input.drainSteered ? { drainSteered: input.drainSteered } : {}),
        },
        emit,
        signal,
      );
      deps.store.append(conversationId, outcome.messages);
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
        { ...input, directives: parseDirectives(input.message) },
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
    async runHeartbeat(beat, signal) {
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
        () => {},
        signal,
      ).catch(async (error: unknown) => {
        throw toTurnError(error, await tokenOf(deps));
      });
      const silent = result.silent || result.text.trim() === '';
      return { ran: true, reason: probe.reason, reply: silent ? '' : result.text, silent };
    },
  };
}

async function tokenOf(deps: AgentLoopDeps): Promise<string> {
  return (await deps.llm().catch(() => undefined))?.apiKey ?? '';
}

function errorEvent(error: OpenLegionError): ChatEvent {
  return { type: 'error', code: error.code, message: error.message, retryable: error.retryable };
}

/**
 * A failed turn as the client sees it: loop errors keep their code, LLM failures become
 * `AGENT_LLM_FAILED` (retryable unless the proxy refused the request), anything else is a crash
 * and is thrown on (the server reports it as INTERNAL).
 */
function toTurnError(error: unknown, token: string): OpenLegionError {
  if (error instanceof OpenLegionError) return error;
  if (!(error instanceof LlmCallFailedError)) throw error;
  const { message, retryable } = describeLlmFailure(error.cause, token);
  return new LlmTurnError(message, retryable, error);
}

/** `AGENT_LLM_FAILED` with the retryability of the failure behind it. */
class LlmTurnError extends OpenLegionError {
  override readonly retryable: boolean;
  constructor(message: string, retryable: boolean, cause: unknown) {
    super('AGENT_LLM_FAILED', message, { cause });
    this.retryable = retryable;
  }
}
