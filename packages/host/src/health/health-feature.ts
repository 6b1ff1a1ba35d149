import { parseRequest } from '@openlegion/infra/http';
import { agentStatusSchema } from '@openlegion/protocol';
import { z } from 'zod';
import type { HostFeature } from '../features/index.js';
import { FLEET } from '../fleet/index.js';
import { AGENT_REGISTRY, toAgentInfo } from '../registry/index.js';
import { HealthMonitor } from './health-monitor.js';

const PROBE_TIMEOUT_MS = 1_500;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
const agentParams = z.object({ agent: z.string().min(1) });

/**
 * Watches the fleet's agents (see HealthMonitor) and gives the operator `POST
 * /api/agents/:agent/restart`, which also recovers an agent marked failed.
 */
export function healthFeature(): HostFeature {
  return {
    name: 'health',
    needs: [AGENT_REGISTRY, FLEET],
    build(context) {
      const { health, lanes } = context.config;
      const registry = context.need(AGENT_REGISTRY);
      const fleet = context.need(FLEET);
      const monitor = new HealthMonitor({
        registry,
        restart: (agent) => fleet.restart(agent),
        probe: async (url) => {
          const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
          if (!response.ok) throw new Error(`/status answered ${response.status}`);
          return agentStatusSchema.parse(await response.json());
        },
        clock: context.clock,
        logger: context.logger.child({ component: 'health' }),
        policy: {
          intervalMs: health.interval_ms,
          failuresBeforeRestart: health.failures_before_restart,
          maxRestartsPerHour: health.max_restarts_per_hour,
          hungAfterMs: lanes.watchdog_ms,
          backoffBaseMs: BACKOFF_BASE_MS,
          backoffMaxMs: BACKOFF_MAX_MS,
        },
      });
      return {
        routes(app) {
          app.post('/api/agents/:agent/restart', { config: { auth: 'operator' } }, async (request) => {
            const { agent } = parseRequest(agentParams, request.params, 'params');
            await monitor.restartNow(agent);
            const record = registry.get(agent);
            return { agent: record ? toAgentInfo(record) : null };
          });
        },
        start() {
          fleet.onAgentExit((agent) => void monitor.agentExited(agent));
          monitor.start();
        },
        stop: () => monitor.stop(),
      };
    },
  };
}
