import { type ChildProcess, spawn } from 'node:child_process';

/** How long a process gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/** Variables a command never sees: the agent's own credential for the mesh. */
const HIDDEN_VARIABLES = ['MESH_TOKEN'];

/** The environment commands run with: the agent's own, less {@link HIDDEN_VARIABLES}. */
export function commandEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = { ...source };
  for (const name of HIDDEN_VARIABLES) delete env[name];
  return env;
}

/**
 * Start `command` through `/bin/sh -c` in its own process group (so the whole tree can be
 * killed), stdin closed, stdout and stderr piped.
 */
export function spawnShell(command: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * End a process and everything it started: SIGTERM to its group, then SIGKILL after
 * {@link KILL_GRACE_MS} if it is still there. Resolves when the process has exited.
 */
export function killProcessTree(child: ChildProcess, graceMs = KILL_GRACE_MS): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      // Children that ignored SIGTERM must not outlive the group leader.
      signalGroup(child, 'SIGKILL');
      resolve();
    });
    signalGroup(child, 'SIGTERM');
  });
}

/** Send `signal` to the process group of `child` (it and everything it started). */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
