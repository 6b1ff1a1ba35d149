import type { ErrorCode } from '@openlegion/protocol';
import { OpenLegionError } from '@openlegion/protocol';
import type { FeatureContext } from '../features/index.js';

/** What a kind of slot is, for the refusal an agent gets past its cap. */
export interface SlotKind {
  code: Extract<ErrorCode, 'MESH_STREAM_LIMIT' | 'LLM_CALL_LIMIT' | 'SEARCH_BUSY' | 'MCP_BUSY'>;
  /** The mesh.yaml field that sets the cap. */
  field: string;
  /** What is counted, plural: "streams open". */
  what: string;
  /** What the agent can do about it. */
  fix: string;
}

const STREAMS: SlotKind = {
  code: 'MESH_STREAM_LIMIT',
  field: 'limits.streams_per_agent',
  what: 'streams open',
  fix: 'close one (end a watch or a pub/sub stream) before opening another',
};
const LLM_CALLS: SlotKind = {
  code: 'LLM_CALL_LIMIT',
  field: 'limits.llm_calls_per_agent',
  what: 'LLM calls running',
  fix: 'wait for one to finish (read the stream it answers with) before starting another',
};

/**
 * How many of something each agent holds at once, across the host's features: SSE streams
 * (blackboard watches and pub/sub streams share one count), or LLM calls. Each holds a socket,
 * buffers and maybe an upstream connection, so an agent gets at most `perAgent` of them.
 */
export class AgentSlots {
  readonly #open = new Map<string, number>();
  readonly #perAgent: number;
  readonly #kind: SlotKind;

  constructor(perAgent: number, kind: SlotKind = STREAMS) {
    this.#perAgent = perAgent;
    this.#kind = kind;
  }

  /**
   * Take one of `agent`'s slots, or throw 429 (the kind's code). Returns the function that gives it
   * back; calling that again does nothing, so every way a stream or call ends may call it.
   */
  acquire(agent: string): () => void {
    const open = this.open(agent);
    if (open >= this.#perAgent) {
      const { code, field, what, fix } = this.#kind;
      throw new OpenLegionError(
        code,
        `agent "${agent}" already has ${open} ${what}, as many as ${field} (${this.#perAgent}) allows; ${fix}`,
        { details: { agent, open, max: this.#perAgent, field } },
      );
    }
    this.#open.set(agent, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.open(agent) - 1;
      if (left > 0) this.#open.set(agent, left);
      else this.#open.delete(agent);
    };
  }

  /** How many `agent` holds now. */
  open(agent: string): number {
    return this.#open.get(agent) ?? 0;
  }
}

// Keyed by the host's mesh.db: each feature sees its own view of the context, one database per host.
const streamsByHost = new WeakMap<FeatureContext['db'], AgentSlots>();
const llmCallsByHost = new WeakMap<FeatureContext['db'], AgentSlots>();

/** The one count of open SSE streams of the host whose features share `context.db`. */
export function streamSlotsOf(context: Pick<FeatureContext, 'config' | 'db'>): AgentSlots {
  let slots = streamsByHost.get(context.db);
  if (!slots) {
    slots = new AgentSlots(context.config.limits.streams_per_agent, STREAMS);
    streamsByHost.set(context.db, slots);
  }
  return slots;
}

/** The one count of running LLM calls of the host whose features share `context.db`. */
export function llmCallSlotsOf(context: Pick<FeatureContext, 'config' | 'db'>): AgentSlots {
  let slots = llmCallsByHost.get(context.db);
  if (!slots) {
    slots = new AgentSlots(context.config.limits.llm_calls_per_agent, LLM_CALLS);
    llmCallsByHost.set(context.db, slots);
  }
  return slots;
}
