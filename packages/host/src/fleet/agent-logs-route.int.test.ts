import { describe, expect, it } from 'vitest';
import { startFeatureTestHost } from '../../test/feature-test-host.js';
import { registerAgentLogsRoute } from './agent-logs-route.js';
import type { AgentRuntime } from './agent-runtime.js';

describe('GET /api/agents/:agent/logs', () => {
  it("answers the agent's last lines to the operator only, and names the agents for an unknown one", async () => {
    const asked: string[] = [];
    const runtime = {
      logs: async (name: string, lines: number) => {
        asked.push(`${name} ${lines}`);
        return 'booted\n<script>alert(1)</script>';
      },
    } as unknown as AgentRuntime;
    const host = await startFeatureTestHost([
      {
        name: 'logs-under-test',
        build: (context) => ({
          routes: (app) => registerAgentLogsRoute(app, { config: context.config, runtime }),
        }),
      },
    ]);
    try {
      const answer = await host.app.inject({ url: '/api/agents/a/logs?lines=5', headers: host.operatorAuth });
      expect(answer.json()).toEqual({ agent: 'a', lines: ['booted', '<script>alert(1)</script>'] });
      expect(asked).toEqual(['openlegion-openlegion-a 5']);
      const byAgent = await host.app.inject({ url: '/api/agents/a/logs', headers: host.agentAuth('a') });
      expect(byAgent.statusCode).toBe(403);
      const unknown = await host.app.inject({ url: '/api/agents/zz/logs', headers: host.operatorAuth });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error).toMatchObject({
        code: 'AGENT_UNKNOWN',
        message: 'no agent "zz" (agents: a, b)',
      });
      const tooMany = await host.app.inject({
        url: '/api/agents/a/logs?lines=5000',
        headers: host.operatorAuth,
      });
      expect(tooMany.json().error.code).toBe('REQUEST_INVALID');
    } finally {
      await host.stop();
    }
  });
});
