import type { PendingApproval, ToolApprovalState } from '@openlegion/protocol';
import { eventKey, type HostFeature, serviceKey } from '../features/index.js';
import { approvalPollMs, registerApprovalRoutes } from './approval-routes.js';
import { Approvals } from './approvals.js';
import { ToolCallApprovals } from './tool-call-approvals.js';

/** The host's one list of what waits for the operator (workflow steps, agents' tool calls). */
export const APPROVALS = serviceKey<Approvals>('approvals');

/** A tool call started to wait for the operator, or stopped waiting (traces record it). */
export const APPROVAL_CHANGED = eventKey<{
  approval: PendingApproval;
  state: ToolApprovalState;
  note?: string;
}>('approvals.changed');

/**
 * Approvals: tools that ask first (mesh.yaml `agents.NAME.approval`) and, as a source, workflow
 * steps that wait. Each tool call that starts to wait is a notice for the operator's channels
 * (Telegram offers buttons); each change is an event on the host's bus.
 */
export function approvalsFeature(): HostFeature {
  return {
    name: 'approvals',
    provides: [APPROVALS],
    build(context) {
      const { config } = context;
      const toolCalls = new ToolCallApprovals({
        clock: context.clock,
        timeoutMs: config.approvals.timeout_ms,
        maxPendingPerAgent: config.approvals.max_pending_per_agent,
        secretsOf: (agent) =>
          [context.tokens.tokenFor(agent), context.tokens.proxyTokenFor(agent)].filter(
            (token): token is string => token !== undefined,
          ),
        onChange: (approval, state, note) => {
          context.events.emit(APPROVAL_CHANGED, { approval, state, ...(note !== undefined ? { note } : {}) });
          if (state === 'pending') {
            context.notices.publish({
              text: `${approval.agent} wants to run ${approval.tool} ${approval.arguments_preview} (/approve ${approval.id} or /reject ${approval.id})`,
              approval,
            });
          }
        },
      });
      const approvals = new Approvals(toolCalls);
      context.provide(APPROVALS, approvals);
      return {
        routes: (app) =>
          registerApprovalRoutes(app, { approvals, pollMs: approvalPollMs(config.lanes.watchdog_ms) }),
        stop: () => toolCalls.stop(),
      };
    },
  };
}
