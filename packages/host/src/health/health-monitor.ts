import type { Clock, Timer } from '@openlegion/infra/clock';
import type { AgentStatus } from '@openlegion/protocol';
import type { Logger } from 'pino';
import type { AgentRegistry } from '../registry/index.js';

export interface HealthPolicy {
  intervalMs: number;
  failuresBeforeRestart: number;
  maxRestartsPerHour: number;
  /** A busy agent whose progress counter stands still this long is hung. */
  hungAfterMs: number;
  /** The first wait between restarts of one agent; it doubles with each restart within the hour. */
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export interface HealthMonitorDeps {
  registry: AgentRegistry;
  restart: (agent: string) => Promise<void>;
  /** `GET {url}/status` within the probe timeout. */
  probe: (url: string) => Promise<AgentStatus>;
  clock: Clock;
  logger: Logger;
  policy: HealthPolicy;
}

const HOUR_MS = 3_600_000;

interface Watch {
  failures: number;
  progress: number;
  progressSince: number;
  restartsAt: number[];
  restartAllowedAt: number;
  restarting: boolean;
  /** The last restart failed: try again (after the backoff) until the hourly limit. */
  retry: boolean;
}

/**
 * Probes every ready agent; restarts one after repeated failed probes, or when it is busy without
 * progress; backs off between restarts; after too many restarts in an hour marks it failed, where
 * it stays until the operator restarts it.
 */
export class HealthMonitor {
  readonly #deps: HealthMonitorDeps;
  readonly #watches = new Map<string, Watch>();
  readonly #inFlight = new Set<Promise<void>>();
  #timer: Timer | undefined;
  #stopped = true;

  constructor(deps: HealthMonitorDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** The operator's restart: forgets the agent's restart history (a failed agent included). */
  async restartNow(agent: string): Promise<void> {
    this.#watches.delete(agent);
    await this.#deps.restart(agent);
  }

  /** The agent's process or container exited on its own: restart it now, not after failed probes. */
  async agentExited(agent: string): Promise<void> {
    const record = this.#deps.registry.get(agent);
    if (this.#stopped || (record?.state !== 'ready' && record?.state !== 'starting')) return;
    const now = this.#deps.clock.now();
    const watch = this.#watch(agent, now);
    if (watch.restarting) return;
    const restart = this.#restart(agent, watch, 'it exited', now).finally(() =>
      this.#inFlight.delete(restart),
    );
    this.#inFlight.add(restart);
    await restart;
  }

  /** One round of probes (the timer calls it; tests may too). */
  async probeAll(): Promise<void> {
    const records = this.#deps.registry.list();
    const now = this.#deps.clock.now();
    await Promise.all(
      records.map(async (record) => {
        if (record.state === 'ready' && record.url) return this.#probeOne(record.name, record.url);
        const watch = this.#watches.get(record.name);
        if (record.state === 'failed' && watch?.retry && !watch.restarting) {
          await this.#restart(record.name, watch, 'its last restart failed', now);
        }
      }),
    );
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#deps.clock.setTimeout(() => {
      const round = this.probeAll().finally(() => {
        this.#inFlight.delete(round);
        this.#schedule();
      });
      this.#inFlight.add(round);
    }, this.#deps.policy.intervalMs);
  }

  async #probeOne(agent: string, url: string): Promise<void> {
    const now = this.#deps.clock.now();
    const watch = this.#watch(agent, now);
    if (watch.restarting) return;
    let reason: string | undefined;
    try {
      const status = await this.#deps.probe(url);
      watch.failures = 0;
      if (status.progress !== watch.progress || status.state !== 'busy') {
        watch.progress = status.progress;
        watch.progressSince = now;
      } else if (now - watch.progressSince >= this.#deps.policy.hungAfterMs) {
        reason = `busy without progress for ${Math.round((now - watch.progressSince) / 1000)}s`;
      }
    } catch (error) {
      watch.failures += 1;
      this.#deps.logger.warn(
        { agent, failures: watch.failures, err: (error as Error).message },
        'agent probe failed',
      );
      if (watch.failures >= this.#deps.policy.failuresBeforeRestart)
        reason = `${watch.failures} failed probes`;
    }
    if (reason) await this.#restart(agent, watch, reason, now);
  }

  async #restart(agent: string, watch: Watch, reason: string, now: number): Promise<void> {
    const { policy, logger } = this.#deps;
    watch.restartsAt = watch.restartsAt.filter((at) => now - at < HOUR_MS);
    if (watch.restartsAt.length >= policy.maxRestartsPerHour) {
      const message = `${reason}; restarted ${watch.restartsAt.length} times in the last hour, so it is left stopped: run openlegion restart ${agent}`;
      logger.error({ agent }, message);
      this.#deps.registry.markFailed(agent, new Error(message));
      this.#watches.delete(agent);
      return;
    }
    if (now < watch.restartAllowedAt) return;
    watch.restartsAt.push(now);
    watch.restartAllowedAt =
      now + Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** (watch.restartsAt.length - 1));
    watch.restarting = true;
    logger.warn({ agent, reason, restart: watch.restartsAt.length }, 'restarting agent');
    try {
      await this.#deps.restart(agent);
      watch.retry = false;
    } catch (error) {
      watch.retry = true;
      logger.error({ err: error, agent }, 'agent restart failed');
    } finally {
      watch.restarting = false;
      watch.failures = 0;
      watch.progressSince = this.#deps.clock.now();
    }
  }

  #watch(agent: string, now: number): Watch {
    let watch = this.#watches.get(agent);
    if (!watch) {
      watch = {
        failures: 0,
        progress: -1,
        progressSince: now,
        restartsAt: [],
        restartAllowedAt: 0,
        restarting: false,
        retry: false,
      };
      this.#watches.set(agent, watch);
    }
    return watch;
  }
}
