import {
  approvalDecidedAnswerSchema,
  approvalsAnswerSchema,
  type PendingApproval,
} from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, type HostConnection, requestJson } from '../host-connection.js';

/** Everything that waits for the operator, oldest first (`GET /api/approvals`). */
export async function fetchApprovals(host: Pick<HostConnection, 'client'>): Promise<PendingApproval[]> {
  return (await requestJson(host, 'GET', '/api/approvals', approvalsAnswerSchema)).approvals;
}

/** One line per approval, with the command that decides it. */
export function approvalLine(approval: PendingApproval): string {
  if (approval.kind === 'workflow_step')
    return `⏸ ${approval.workflow} ${approval.run}: step ${approval.step} waits for approval  (/approve ${approval.id})`;
  const left = Math.max(0, Math.round((approval.expires_at - Date.now()) / 60_000));
  return `⏸ ${approval.agent} wants to run ${approval.tool} ${approval.arguments_preview}  (/approve ${approval.id} · /reject ${approval.id}; ${left} min left)`;
}

/** Approve or reject by id (`POST /api/approvals/:id/approve|reject`); what was decided. */
export async function decideApproval(
  host: Pick<HostConnection, 'client'>,
  id: string,
  decision: 'approve' | 'reject',
  note: string,
): Promise<PendingApproval> {
  const route = `/api/approvals/${encodeURIComponent(id)}/${decision}`;
  return (await requestJson(host, 'POST', route, approvalDecidedAnswerSchema, note ? { note } : {})).approval;
}

/** What the operator reads after a decision. */
export function decidedLine(approval: PendingApproval, decision: 'approve' | 'reject'): string {
  const verb = decision === 'approve' ? 'approved' : 'rejected';
  return approval.kind === 'workflow_step'
    ? `${verb}: step ${approval.step} of ${approval.workflow} ${approval.run}`
    : `${verb}: ${approval.agent}'s call of ${approval.tool}`;
}

/** `openlegion approvals`, `openlegion approve ID`, `openlegion reject ID`: what waits for the operator. */
export function registerApprovalCommands(program: Command, kit: CommandKit): void {
  program
    .command('approvals')
    .description('what waits for your approval: workflow steps and tool calls that ask first')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const approvals = await fetchApprovals(await connectToHost(options.config));
        if (options.json) kit.output.out(`${JSON.stringify(approvals, null, 2)}\n`);
        else if (approvals.length === 0) kit.output.out('nothing waits for approval\n');
        else for (const approval of approvals) kit.output.out(`${approvalLine(approval)}\n`);
        return 0;
      })(),
    );
  for (const decision of ['approve', 'reject'] as const) {
    program
      .command(decision)
      .description(
        decision === 'approve'
          ? 'let what waits run (an id from `openlegion approvals`)'
          : 'refuse what waits: a tool call does not run, a workflow run stops',
      )
      .argument('<id>', 'the approval id')
      .option('--note <text>', decision === 'approve' ? 'a note' : 'why')
      .addOption(kit.configOption())
      .action((id: string, options: { config: string; note?: string }) =>
        kit.run(async () => {
          const host = await connectToHost(options.config);
          const approval = await decideApproval(host, id, decision, options.note ?? '');
          kit.output.out(`${decidedLine(approval, decision)}\n`);
          return 0;
        })(),
      );
  }
}
