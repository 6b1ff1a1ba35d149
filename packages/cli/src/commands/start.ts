import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type LoadedMeshConfig, loadMeshConfig } from '@openlegion/host/config';
import { createMeshHost, installProcessGuard, keepPrivate, type StartProgress } from '@openlegion/host/mesh';
import { createLogger } from '@openlegion/infra/log';
import { type MeshStatus, OpenLegionError } from '@openlegion/protocol';
import { type LevelWithSilent, levels } from 'pino';
import { type StopChannels, startChannels } from '../channels.js';
import type { CliOutput } from '../cli-output.js';
import { startScriptedProviders } from '../scripted-providers.js';
import { AGENT_ENTRY } from '../workspace-paths.js';
import { hostLogDestination } from './host-log.js';
import type { DetachMessage, StartOptions } from './start-options.js';

/** `openlegion start`: run the host in the foreground (or, with --detach, in the background). */
export async function startMesh(options: StartOptions, output: CliOutput): Promise<number> {
  const loaded = await loadMeshConfig(options.config);
  // The background host reports to its launcher until it detaches, then to its own log (host.out).
  const say = options.detachedChild
    ? (text: string) => sendToParent({ type: 'line', text }, text)
    : output.out;
  // Handlers go in before anything starts: until then Ctrl-C would kill the host outright and leave
  // its agents running. A signal during start-up stops what was started.
  const signalled = untilSignal();
  try {
    const mesh = await launch(loaded, options, say, signalled);
    if (options.detachedChild) {
      sendToParent({ type: 'ready' });
      process.disconnect?.();
    }
    const reason = await mesh.untilShutdown();
    say(`${reason}: stopping mesh ${loaded.config.mesh.name}…\n`);
    await mesh.stop();
    say(`mesh ${loaded.config.mesh.name} stopped\n`);
    return 0;
  } catch (error) {
    if (options.detachedChild) sendToParent({ type: 'failed', message: (error as Error).message });
    throw error;
  }
}

interface LaunchedMesh {
  untilShutdown: () => Promise<string>;
  stop: () => Promise<void>;
}

/** Settles with why the host should stop, on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('interrupted'));
    process.once('SIGTERM', () => resolve('terminated'));
  });
}

async function launch(
  loaded: LoadedMeshConfig,
  options: StartOptions,
  say: (text: string) => void,
  signalled: Promise<string>,
): Promise<LaunchedMesh> {
  const { config } = loaded;
  const runtime = options.runtime ?? config.runtime.kind;
  mkdirSync(loaded.dataDir, { recursive: true, mode: 0o700 });
  const logFile = path.join(loaded.dataDir, 'host.log');
  const logger = createLogger({
    level: logLevel(process.env.OPENLEGION_LOG_LEVEL),
    destination: hostLogDestination(logFile),
  });
  keepPrivate(loaded.dataDir, ['host.log', 'host.out']);
  // Nothing an agent sends may end the host: an error that escapes every handler is logged instead.
  const removeGuard = installProcessGuard(logger);
  if (runtime === 'process') {
    say('warning: --runtime process runs agents as plain child processes, with NO container isolation\n');
  }
  const agents = Object.keys(config.agents);
  say(`starting mesh ${config.mesh.name}: ${agents.length} agents on ${runtime} (log: ${logFile})\n`);
  const scripted = await startScriptedProviders(loaded);
  const host = createMeshHost({
    loaded,
    runtime,
    logger,
    env: process.env,
    agentEntry: AGENT_ENTRY,
    baseUrlOverrides: scripted.baseUrls,
    onProgress: (progress) => say(progressLine(progress)),
    ...(options.allowUnlockedNetwork ? { allowUnlockedNetwork: true } : {}),
  });
  let interrupted: string | undefined;
  let starting = true;
  void signalled.then((reason) => {
    interrupted = reason;
    // During start-up a signal ends the start; afterwards the orderly stop below (channels first) runs.
    if (starting) return host.stop();
  });
  let status: MeshStatus;
  try {
    status = await host.start();
  } catch (error) {
    await scripted.stop();
    removeGuard();
    if (interrupted)
      throw new OpenLegionError(
        'AGENT_START_FAILED',
        `${interrupted} during start; everything started was stopped`,
        { cause: error },
      );
    throw error;
  } finally {
    starting = false;
  }
  say(`mesh ${status.mesh} ready: ${status.agents.length} agents, host ${status.url}\n`);
  say(`  try: pnpm -s openlegion send ${agents[0]} "hello"   or   pnpm -s openlegion chat\n`);
  if (config.dashboard.enabled)
    say(
      `  dashboard: http://127.0.0.1:${config.mesh.port}/ui (sign in with ${path.join(loaded.dataDir, 'operator-token')})\n`,
    );
  let stopChannels: StopChannels;
  try {
    stopChannels = await startChannels(host, loaded, logger, say);
  } catch (error) {
    // Each channel reports its own failure; what lands here (the channels package would not
    // load) must not leave the agents' containers running behind a dead host.
    await host.stop();
    await scripted.stop();
    removeGuard();
    throw error;
  }
  return {
    untilShutdown: () => Promise.race([signalled, host.shutdownRequested.then(() => 'shutdown requested')]),
    stop: async () => {
      await stopChannels();
      await host.stop();
      await scripted.stop();
      removeGuard();
      logger.flush();
    },
  };
}

function logLevel(value: string | undefined): LevelWithSilent {
  if (value === undefined || value === '') return 'info';
  if (value === 'silent' || value in levels.values) return value as LevelWithSilent;
  throw new Error(
    `OPENLEGION_LOG_LEVEL=${value} is not a log level (${Object.keys(levels.values).join(', ')}, silent)`,
  );
}

function progressLine(progress: StartProgress): string {
  const seconds = (progress.ms / 1000).toFixed(2);
  switch (progress.phase) {
    case 'starting':
      return `  … ${progress.agent} starting\n`;
    case 'ready':
      return `  ✓ ${progress.agent} ready in ${seconds}s\n`;
    case 'failed':
      return `  ✗ ${progress.agent} failed after ${seconds}s\n`;
  }
}

/** Send to the launching parent while it listens; afterwards `fallback` goes to stdout instead. */
function sendToParent(message: DetachMessage, fallback?: string): void {
  if (process.connected && process.send) process.send(message);
  else if (fallback) process.stdout.write(fallback);
}
