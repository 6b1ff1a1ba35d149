import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { findFreePort } from '@openlegion/infra/http';
import { OpenLegionError } from '@openlegion/protocol';
import { AgentPidFiles } from './agent-pid-files.js';
import {
  type AgentRuntime,
  type AgentSpec,
  agentInstanceName,
  type PreparedMesh,
  type RunningAgent,
} from './agent-runtime.js';
import { ExitListeners } from './exit-listeners.js';
import { LogTail } from './log-tail.js';

export interface ProcessRuntimeOptions {
  /** The agent's entry file, `<repo>/packages/agent/dist/main.js`. */
  agentEntry: string;
  /** The node binary; defaults to the host's own. */
  nodePath?: string;
  /** Where pid files of running agents are kept, so the next run can stop what a crash left. */
  runDir?: string;
  /** Time between SIGTERM and SIGKILL when stopping an agent. */
  stopTimeoutMs?: number;
  /** Lines of output kept per agent for `logs`. */
  logLines?: number;
}

interface AgentProcess {
  running: RunningAgent;
  child: ChildProcess;
  output: LogTail;
  exited: Promise<void>;
}

const LOOPBACK = '127.0.0.1';
const DEFAULT_STOP_TIMEOUT_MS = 5_000;
const DEFAULT_LOG_LINES = 200;
const KILL_WAIT_MS = 3_000;

/**
 * Agents as child processes of the host, listening on loopback. For machines without Docker:
 * an agent runs as the host's user with the host's file access — much weaker isolation.
 */
export class ProcessRuntime implements AgentRuntime {
  readonly kind = 'process';
  readonly #agentEntry: string;
  readonly #nodePath: string;
  readonly #stopTimeoutMs: number;
  readonly #logLines: number;
  readonly #pidFiles: AgentPidFiles;
  readonly #processes = new Map<string, AgentProcess>();
  readonly #stopping = new Set<string>();
  readonly #exits = new ExitListeners();

  constructor(options: ProcessRuntimeOptions) {
    this.#agentEntry = path.resolve(options.agentEntry);
    this.#nodePath = options.nodePath ?? process.execPath;
    this.#stopTimeoutMs = options.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
    this.#logLines = options.logLines ?? DEFAULT_LOG_LINES;
    this.#pidFiles = new AgentPidFiles(options.runDir ?? path.join(tmpdir(), 'openlegion-agents'));
  }

  async prepare(_mesh: string): Promise<PreparedMesh> {
    return { hostBindAddresses: [LOOPBACK], agentMeshUrl: (port) => `http://${LOOPBACK}:${port}` };
  }

  async cleanupLeftovers(mesh: string): Promise<string[]> {
    const removed: string[] = [];
    for (const record of await this.#pidFiles.list(mesh)) {
      if (!this.#processes.has(record.name) && (await this.#isAgentProcess(record.pid))) {
        process.kill(record.pid, 'SIGKILL');
        await this.#untilGone(record.pid);
        removed.push(record.name);
      }
      if (!this.#processes.has(record.name)) await this.#pidFiles.remove(record.name);
    }
    return removed;
  }

  async start(spec: AgentSpec): Promise<RunningAgent> {
    const name = agentInstanceName(spec.mesh, spec.agent);
    await this.stop(name);
    const port = await findFreePort(LOOPBACK);
    const dataDir = path.join(spec.dataDir, 'agents', spec.agent);
    await mkdir(dataDir, { recursive: true });
    const child = spawn(this.#nodePath, [this.#agentEntry], {
      // Only the agent's own variables: the host's environment holds provider keys.
      env: {
        ...spec.env,
        AGENT_PORT: String(port),
        AGENT_HOST: LOOPBACK,
        AGENT_DATA_DIR: dataDir,
        ...(spec.skillsDir ? { AGENT_FLEET_SKILLS_DIR: spec.skillsDir } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = new LogTail(this.#logLines);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    // Not `once(child, 'exit')`: that rejects on a spawn error, which `spawned` reports instead.
    const exited = new Promise((resolve) => child.once('exit', resolve)).then(() =>
      this.#pidFiles.remove(name),
    );
    void exited.then(() => {
      if (this.#processes.get(name)?.child === child && !this.#stopping.has(name))
        this.#exits.emit(spec.agent);
    });
    await spawned(child, spec.agent);
    const running: RunningAgent = {
      agent: spec.agent,
      name,
      url: `http://${LOOPBACK}:${port}`,
      containerId: null,
      pid: child.pid ?? null,
    };
    this.#processes.set(name, { running, child, output, exited });
    if (child.pid !== undefined)
      await this.#pidFiles.write(name, { mesh: spec.mesh, agent: spec.agent, pid: child.pid });
    return running;
  }

  async stop(name: string): Promise<void> {
    const agentProcess = this.#processes.get(name);
    if (!agentProcess || !isRunning(agentProcess.child)) return;
    this.#stopping.add(name);
    try {
      agentProcess.child.kill('SIGTERM');
      const timeout = delay(this.#stopTimeoutMs, 'timeout' as const, { ref: false });
      if ((await Promise.race([agentProcess.exited, timeout])) === 'timeout') {
        agentProcess.child.kill('SIGKILL');
      }
      await agentProcess.exited;
    } finally {
      this.#stopping.delete(name);
    }
  }

  onUnexpectedExit(listener: (agent: string) => void): void {
    this.#exits.listen(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#processes.keys()].map((name) => this.stop(name)));
  }

  async logs(name: string, lines: number): Promise<string> {
    const agentProcess = this.#processes.get(name);
    if (!agentProcess) throw new OpenLegionError('AGENT_UNKNOWN', `no agent process ${name} was started`);
    return agentProcess.output.last(lines).join('\n');
  }

  async removeData(_mesh: string, agent: string, dataDir: string): Promise<void> {
    await rm(path.join(dataDir, 'agents', agent), { recursive: true, force: true });
  }

  async teardown(_mesh: string): Promise<void> {
    // No network to remove; finished processes keep their output until the runtime is dropped.
  }

  /** Only kill a recorded pid if it still runs our agent entry (pids are reused). */
  /** Wait for a killed process to die; a zombie (its cmdline is empty) counts as gone. */
  async #untilGone(pid: number): Promise<void> {
    const deadline = Date.now() + KILL_WAIT_MS;
    while ((await this.#isAgentProcess(pid)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async #isAgentProcess(pid: number): Promise<boolean> {
    const commandLine = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    return commandLine.split('\0').includes(this.#agentEntry);
  }
}

function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

async function spawned(child: ChildProcess, agent: string): Promise<void> {
  try {
    await once(child, 'spawn');
  } catch (error) {
    throw new OpenLegionError(
      'AGENT_START_FAILED',
      `agent "${agent}" could not be started: ${String(error)}`,
      {
        cause: error,
      },
    );
  }
}
