import type { ChildProcess } from 'node:child_process';
import { type Clock, systemClock, type Timer } from '@openlegion/infra/clock';
import { ToolFailure } from '../tool-failure.js';
import { OutputRingBuffer } from './output-ring-buffer.js';
import { commandEnvironment, killProcessTree, spawnShell } from './shell-process.js';

/** Output kept per process (bytes); older output is dropped and the reader told so. */
export const PROCESS_OUTPUT_BYTES = 64 * 1024;
/** Processes running at once. */
export const MAX_RUNNING_PROCESSES = 10;
/** Longest a background process may run before it is killed (seconds). */
export const PROCESS_MAX_RUNTIME_S = 4 * 60 * 60;
/** Finished processes whose status and output stay readable. */
const KEPT_FINISHED = 20;

/** A background process and what is known about it. */
export interface ManagedProcess {
  id: string;
  command: string;
  pid: number | undefined;
  startedAt: number;
  endedAt?: number;
  exitCode: number | null;
  signal: string | null;
  /** Why the registry ended it, if it did. */
  killedFor?: 'request' | 'max runtime' | 'shutdown';
  output: OutputRingBuffer;
  running: boolean;
}

export interface ProcessRegistryOptions {
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  maxRunning?: number;
  maxRuntimeS?: number;
  outputBytes?: number;
}

/**
 * The agent's background processes: started through the shell in the workspace, each with a ring
 * buffer of its output, at most {@link MAX_RUNNING_PROCESSES} running, each killed at its max runtime,
 * and all killed by {@link ProcessRegistry.closeAll} when the agent shuts down.
 */
export class ProcessRegistry {
  readonly #processes = new Map<string, ManagedProcess & { child: ChildProcess; timer: Timer }>();
  readonly #clock: Clock;
  readonly #env: NodeJS.ProcessEnv;
  readonly #maxRunning: number;
  readonly #outputBytes: number;
  readonly maxRuntimeS: number;
  #nextId = 1;
  #closed = false;

  constructor(options: ProcessRegistryOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#env = options.env ?? commandEnvironment();
    this.#maxRunning = options.maxRunning ?? MAX_RUNNING_PROCESSES;
    this.maxRuntimeS = options.maxRuntimeS ?? PROCESS_MAX_RUNTIME_S;
    this.#outputBytes = options.outputBytes ?? PROCESS_OUTPUT_BYTES;
  }

  /** Start `command` in `cwd`; it is killed after `maxRuntimeS` (capped at the registry's limit). */
  start(command: string, cwd: string, maxRuntimeS = this.maxRuntimeS): ManagedProcess {
    if (this.#closed) throw new ToolFailure('the agent is shutting down; no process can start');
    const running = this.list().filter((entry) => entry.running);
    if (running.length >= this.#maxRunning)
      throw new ToolFailure(
        `${running.length} processes are already running (the limit); kill one first (running: ${running.map((entry) => entry.id).join(', ')})`,
      );
    const id = `p${this.#nextId++}`;
    const child = spawnShell(command, cwd, this.#env);
    const output = new OutputRingBuffer(this.#outputBytes);
    child.stdout?.on('data', (chunk: Buffer) => output.write(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.write(chunk));
    const runtimeS = Math.min(maxRuntimeS, this.maxRuntimeS);
    const timer = this.#clock.setTimeout(() => void this.#end(id, 'max runtime'), runtimeS * 1000);
    const entry = {
      id,
      command,
      pid: child.pid,
      startedAt: this.#clock.now(),
      exitCode: null,
      signal: null,
      output,
      running: true,
      child,
      timer,
    };
    this.#processes.set(id, entry);
    const finish = (code: number | null, signal: string | null, error?: Error) => {
      if (!entry.running) return;
      Object.assign(entry, { running: false, exitCode: code, signal, endedAt: this.#clock.now() });
      if (error) output.write(Buffer.from(`[could not start: ${error.message}]\n`));
      timer.cancel();
      this.#forgetOldFinished();
    };
    child.once('close', (code, signal) => finish(code, signal));
    child.once('error', (error) => finish(null, null, error));
    return entry;
  }

  /** The registry clock's time, for runtimes the tools report. */
  now(): number {
    return this.#clock.now();
  }

  get(id: string): ManagedProcess {
    const entry = this.#processes.get(id);
    if (!entry)
      throw new ToolFailure(
        `no process "${id}"; process_list shows the ids (${[...this.#processes.keys()].join(', ') || 'none yet'})`,
      );
    return entry;
  }

  list(): ManagedProcess[] {
    return [...this.#processes.values()];
  }

  /** Kill one process (and what it started); resolves when it has exited. */
  async kill(id: string): Promise<ManagedProcess> {
    this.get(id);
    await this.#end(id, 'request');
    return this.get(id);
  }

  /** Kill every running process and refuse new ones: the agent calls this when it closes. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.list().map((entry) => this.#end(entry.id, 'shutdown')));
  }

  async #end(id: string, why: NonNullable<ManagedProcess['killedFor']>): Promise<void> {
    const entry = this.#processes.get(id);
    if (!entry?.running) return;
    entry.killedFor = why;
    entry.timer.cancel();
    await killProcessTree(entry.child);
    // 'close' waits for the pipes too; 'exit' has happened, so record the end now.
    if (entry.running)
      Object.assign(entry, {
        running: false,
        exitCode: entry.child.exitCode,
        signal: entry.child.signalCode,
        endedAt: this.#clock.now(),
      });
  }

  #forgetOldFinished(): void {
    const finished = this.list().filter((entry) => !entry.running);
    for (const entry of finished.slice(0, Math.max(0, finished.length - KEPT_FINISHED)))
      this.#processes.delete(entry.id);
  }
}
