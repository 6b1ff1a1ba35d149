import { openSseResponse, type SseResponse } from '@openlegion/infra/sse';
import type { FastifyInstance } from 'fastify';
import { APPROVAL_CHANGED } from '../approvals/index.js';
import { USAGE_RECORDED } from '../costs/index.js';
import type { EventBus } from '../features/index.js';
import { LANE_ITEM_CHANGED } from '../lanes/index.js';
import { AGENT_STATE_CHANGED } from '../registry/index.js';
import { WORKFLOW_STEP_CHANGED } from '../workflows/index.js';

/**
 * Browsers keep about six connections per origin, so each page opens this one stream and refetches
 * what an event says changed. A comment every 25 s keeps proxies and the browser from closing it.
 */
const KEEPALIVE_MS = 25_000;

/**
 * `GET /ui/api/events`: the host's facts as they happen, small and named: `agent` (a state change),
 * `lane` (an item queued, running, settled), `usage` (one LLM call's cost), `step` (a workflow step
 * row), `approval` (a tool call or step that waits or was decided). Operator only (the dashboard's
 * session, or the operator token).
 */
export function registerDashboardEvents(app: FastifyInstance, events: EventBus): void {
  app.get('/ui/api/events', { config: { auth: 'operator' } }, async (_request, reply) => {
    reply.hijack();
    const stream = openSseResponse(reply.raw);
    const send = (event: string, data: unknown) => stream.send({ event, data: JSON.stringify(data) });
    const stops = [
      events.on(AGENT_STATE_CHANGED, (agent) => send('agent', { name: agent.name, state: agent.state })),
      events.on(LANE_ITEM_CHANGED, ({ item, phase }) =>
        send('lane', { id: item.id, agent: item.agent, kind: item.kind, phase, trace_id: item.traceId }),
      ),
      events.on(USAGE_RECORDED, (usage) => send('usage', usage)),
      events.on(WORKFLOW_STEP_CHANGED, (step) =>
        send('step', { run: step.runId, step: step.stepId, state: step.state }),
      ),
      events.on(APPROVAL_CHANGED, ({ approval, state }) => send('approval', { id: approval.id, state })),
    ];
    stream.send({ event: 'hello', data: '{}' });
    const keepalive = setInterval(() => stream.send(': keepalive\n\n'), KEEPALIVE_MS);
    await closed(stream);
    clearInterval(keepalive);
    for (const stop of stops) stop();
  });
}

function closed(stream: SseResponse): Promise<void> {
  return new Promise((resolve) => {
    if (stream.signal.aborted) resolve();
    else stream.signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
