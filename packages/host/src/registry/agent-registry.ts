import { EventEmitter } from 'node:events';
import { type Clock, systemClock, type Timer } from '@openlegion/infra/clock';
import { OpenLegionError } from '@openlegion/protocol';
import type { AgentLifecycleState, AgentRecord } from './agent-record.js';
import type { RegistryStore } from './registry-store.js';

export interface AgentRegistryOptions {
  store: RegistryStore;
  /** For timestamps and the ready timeout. */
  clock?: Clock;
}

/** What the fleet knows when it starts an agent. */
export interface AgentStart {
  name: string;
  runtime: AgentRecord['runtime'];
  model: string;
  url?: string | null;
  container?: string | null;
  /** A temporary agent (fleet spawn). */
  temporary?: boolean;
}

interface Entry {
  record: AgentRecord;
  runId: number;
}

const TRANSITION = 'transition';

/**
 * The live record of every agent of this host run. Each transition is written to the store, and
 * `waitForReady` wakes on the transition itself (no polling).
 */
export class AgentRegistry {
  readonly #store: RegistryStore;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  readonly #transitions = new EventEmitter();

  constructor(options: AgentRegistryOptions) {
    this.#store = options.store;
    this.#clock = options.clock ?? systemClock;
    // One listener per waiting caller; starting many agents at once is normal.
    this.#transitions.setMaxListeners(0);
  }

  /** Record that an agent is starting (a new run); replaces the record of an earlier run. */
  register(start: AgentStart): AgentRecord {
    const startedAt = this.#now();
    const previous = this.#entries.get(start.name);
    // A restart without a stop in between still closes the earlier run.
    if (previous && previous.record.state !== 'stopped' && previous.record.state !== 'failed') {
      this.#store.runs.finish(previous.runId, startedAt, 'stopped');
    }
    const record: AgentRecord = {
      name: start.name,
      state: 'starting',
      runtime: start.runtime,
      url: start.url ?? null,
      container: start.container ?? null,
      model: start.model,
      startedAt,
      readyAt: null,
      lastError: null,
      restarts: previous ? previous.record.restarts + 1 : 0,
      ...(start.temporary ? { temporary: true } : {}),
    };
    this.#store.agents.upsert({ ...record, stoppedAt: null });
    const runId = this.#store.runs.start(start.name, startedAt);
    this.#entries.set(start.name, { record, runId });
    this.#emit(record);
    return { ...record };
  }

  /** Fill in where the agent is reachable once the runtime knows (container name, URL). */
  setLocation(name: string, location: { url?: string; container?: string }): AgentRecord {
    const entry = this.#entry(name);
    if (location.url !== undefined) entry.record.url = location.url;
    if (location.container !== undefined) entry.record.container = location.container;
    this.#store.agents.setState(name, entry.record.state, location);
    return { ...entry.record };
  }

  /**
   * The agent reported ready (`POST /mesh/ready`). A URL it reports is used only when the runtime
   * gave none. Throws AGENT_NOT_READY when the agent is stopping, stopped or failed.
   */
  markReady(name: string, report: { url?: string } = {}): AgentRecord {
    const entry = this.#entry(name);
    const { record } = entry;
    if (record.state !== 'starting' && record.state !== 'ready') {
      throw new OpenLegionError(
        'AGENT_NOT_READY',
        `agent "${name}" is ${record.state}; its ready report was refused`,
      );
    }
    if (record.state === 'ready') return { ...record };
    const readyAt = this.#now();
    record.state = 'ready';
    record.readyAt = readyAt;
    record.url = record.url ?? report.url ?? null;
    this.#store.agents.setState(name, 'ready', { readyAt, url: record.url });
    this.#store.runs.markReady(entry.runId, readyAt);
    this.#emit(record);
    return { ...record };
  }

  /** The agent failed to start or crashed; waiters reject with AGENT_START_FAILED. */
  markFailed(name: string, error: unknown): AgentRecord {
    const entry = this.#entry(name);
    const message = error instanceof Error ? error.message : String(error);
    const stoppedAt = this.#now();
    entry.record.state = 'failed';
    entry.record.lastError = message;
    this.#store.agents.setState(name, 'failed', { lastError: message, stoppedAt });
    this.#store.runs.finish(entry.runId, stoppedAt, 'failed');
    this.#emit(entry.record);
    return { ...entry.record };
  }

  markStopping(name: string): AgentRecord {
    return this.#transition(name, 'stopping');
  }

  markStopped(name: string): AgentRecord {
    const entry = this.#entry(name);
    if (entry.record.state === 'stopped') return { ...entry.record };
    const stoppedAt = this.#now();
    if (entry.record.state !== 'failed') this.#store.runs.finish(entry.runId, stoppedAt, 'stopped');
    entry.record.state = 'stopped';
    this.#store.agents.setState(name, 'stopped', { stoppedAt });
    this.#emit(entry.record);
    return { ...entry.record };
  }

  /**
   * Drop a stopped or failed agent from this run's list (a temporary agent once removed); its runs
   * stay in the store. A live agent is kept.
   */
  forget(name: string): void {
    const entry = this.#entries.get(name);
    if (entry && (entry.record.state === 'stopped' || entry.record.state === 'failed'))
      this.#entries.delete(name);
  }

  /** Be told of every state change (e.g. to dispatch work when an agent becomes ready). */
  onTransition(listener: (record: AgentRecord) => void): () => void {
    this.#transitions.on(TRANSITION, listener);
    return () => this.#transitions.off(TRANSITION, listener);
  }

  get(name: string): AgentRecord | undefined {
    const entry = this.#entries.get(name);
    return entry && { ...entry.record };
  }

  /** Every agent of this run, by name. */
  list(): AgentRecord[] {
    return [...this.#entries.values()]
      .map((entry) => ({ ...entry.record }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Resolve when the agent is ready; reject with AGENT_START_FAILED when it fails, stops or does not
   * become ready within `timeoutMs`, and with the signal's reason when `signal` aborts.
   */
  waitForReady(name: string, timeoutMs: number, signal?: AbortSignal): Promise<AgentRecord> {
    return new Promise((resolve, reject) => {
      let timer: Timer | undefined;
      const cleanup = () => {
        timer?.cancel();
        this.#transitions.off(TRANSITION, onTransition);
        signal?.removeEventListener('abort', onAbort);
      };
      const settle = (record: AgentRecord): boolean => {
        const outcome = readiness(record);
        if (outcome === 'pending') return false;
        cleanup();
        if (outcome === 'ready') resolve({ ...record });
        else reject(startFailed(record));
        return true;
      };
      const onTransition = (record: AgentRecord) => {
        if (record.name === name) settle(record);
      };
      const onAbort = () => {
        cleanup();
        reject(signal?.reason);
      };

      if (signal?.aborted) return reject(signal.reason);
      const current = this.#entry(name).record;
      if (settle(current)) return;
      this.#transitions.on(TRANSITION, onTransition);
      signal?.addEventListener('abort', onAbort, { once: true });
      timer = this.#clock.setTimeout(() => {
        cleanup();
        reject(
          new OpenLegionError(
            'AGENT_START_FAILED',
            `agent "${name}" did not report ready within ${timeoutMs} ms`,
            {
              details: { agent: name, timeout_ms: timeoutMs },
            },
          ),
        );
      }, timeoutMs);
    });
  }

  #transition(name: string, state: AgentLifecycleState): AgentRecord {
    const entry = this.#entry(name);
    entry.record.state = state;
    this.#store.agents.setState(name, state);
    this.#emit(entry.record);
    return { ...entry.record };
  }

  #entry(name: string): Entry {
    const entry = this.#entries.get(name);
    if (!entry) {
      const agents = [...this.#entries.keys()].sort();
      throw new OpenLegionError(
        'AGENT_UNKNOWN',
        `no agent "${name}" (agents: ${agents.join(', ') || 'none'})`,
        {
          details: { agents },
        },
      );
    }
    return entry;
  }

  #emit(record: AgentRecord): void {
    this.#transitions.emit(TRANSITION, { ...record });
  }

  #now(): string {
    return new Date(this.#clock.now()).toISOString();
  }
}

function readiness(record: AgentRecord): 'ready' | 'pending' | 'failed' {
  if (record.state === 'ready') return 'ready';
  return record.state === 'starting' ? 'pending' : 'failed';
}

function startFailed(record: AgentRecord): OpenLegionError {
  const reason = record.lastError ? `: ${record.lastError}` : '';
  return new OpenLegionError('AGENT_START_FAILED', `agent "${record.name}" is ${record.state}${reason}`, {
    details: { agent: record.name, state: record.state },
  });
}
