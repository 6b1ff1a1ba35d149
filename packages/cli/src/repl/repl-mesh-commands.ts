import {
  type PendingApproval,
  pendingApprovalsAnswerSchema,
  workflowListingsAnswerSchema,
  workflowRunsAnswerSchema,
} from '@openlegion/protocol';
import { blackboardAction, showCosts, showTraces } from '../commands/mesh-state.js';
import { collectInput, printListing, requestRun } from '../commands/workflow.js';
import { drawRun } from '../commands/workflow-dag-text.js';
import { requestJson } from '../host-connection.js';
import type { ReplCommand } from './repl-commands.js';
import type { ReplSession } from './repl-session.js';

const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);
const runPath = (run: string) => `/api/workflows/runs/${encodeURIComponent(run)}`;

async function pendingApprovals(session: ReplSession): Promise<PendingApproval[]> {
  return (await requestJson(session.host, 'GET', '/api/workflows/approvals', pendingApprovalsAnswerSchema))
    .approvals;
}

function printApproval(session: ReplSession, { run, workflow, step }: PendingApproval): void {
  session.output.out(`⏸ ${workflow} ${run}: step ${step} waits for approval  (/approve ${run} ${step})\n`);
}

/**
 * Print the approvals that started waiting since the last look, so the operator sees them at the
 * prompt wherever they are. Best effort: a host that cannot answer just offers nothing this time.
 */
export async function offerNewApprovals(session: ReplSession): Promise<void> {
  let pending: PendingApproval[];
  try {
    pending = await pendingApprovals(session);
  } catch {
    return;
  }
  for (const approval of pending) {
    const key = `${approval.run}/${approval.step}`;
    if (session.offeredApprovals.has(key)) continue;
    session.offeredApprovals.add(key);
    printApproval(session, approval);
  }
}

function decision(name: 'approve' | 'reject'): ReplCommand {
  return {
    name,
    usage: `/${name} RUN STEP [${name === 'approve' ? 'note' : 'why'}]`,
    description:
      name === 'approve'
        ? 'let a workflow step that waits run'
        : 'refuse a workflow step that waits (its run stops)',
    async run(session, args) {
      const [run, step, ...note] = words(args);
      if (!run || !step) return session.output.err(`usage: /${name} RUN STEP\n`);
      const body = note.length > 0 ? { note: note.join(' ') } : {};
      const route = `${runPath(run)}/steps/${encodeURIComponent(step)}/${name}`;
      session.output.out(drawRun(await requestRun(session.host, 'POST', route, body), Date.now()));
    },
  };
}

/** The REPL's mesh commands: workflows and approvals, the blackboard, traces. */
export const MESH_REPL_COMMANDS: ReplCommand[] = [
  {
    name: 'workflow',
    usage: '/workflow list|run NAME [k=v…]|status [RUN]|cancel RUN',
    description: 'workflow files and their runs',
    async run(session, args) {
      const [action = 'list', target, ...rest] = words(args);
      const { host, output } = session;
      if (action === 'list') {
        const { workflows } = await requestJson(host, 'GET', '/api/workflows', workflowListingsAnswerSchema);
        return printListing(workflows, output);
      }
      if (action === 'run' && target) {
        const inputs = rest.reduce((all: Record<string, string>, pair) => collectInput(pair, all), {});
        const route = `/api/workflows/${encodeURIComponent(target)}/runs`;
        const run = await requestRun(host, 'POST', route, { inputs });
        return output.out(`started ${run.id}\n${drawRun(run, Date.now())}`);
      }
      if (action === 'status' && target)
        return output.out(drawRun(await requestRun(host, 'GET', runPath(target)), Date.now()));
      if (action === 'status') {
        const body = await requestJson(host, 'GET', '/api/workflows/runs?limit=10', workflowRunsAnswerSchema);
        if (body.runs.length === 0) return output.out('no workflow runs yet\n');
        for (const run of body.runs) output.out(`${run.id}  ${run.workflow}  ${run.state}\n`);
        return;
      }
      if (action === 'cancel' && target)
        return output.out(drawRun(await requestRun(host, 'POST', `${runPath(target)}/cancel`), Date.now()));
      output.err('usage: /workflow list|run NAME [k=v…]|status [RUN]|cancel RUN\n');
    },
  },
  {
    name: 'approvals',
    usage: '/approvals',
    description: 'workflow steps that wait for your approval',
    async run(session) {
      const pending = await pendingApprovals(session);
      if (pending.length === 0) session.output.out('nothing waits for approval\n');
      for (const approval of pending) {
        session.offeredApprovals.add(`${approval.run}/${approval.step}`);
        printApproval(session, approval);
      }
    },
  },
  decision('approve'),
  decision('reject'),
  {
    name: 'blackboard',
    usage: '/blackboard list [PREFIX]|get KEY|set KEY JSON|del KEY',
    description: "the mesh's shared state",
    async run(session, args) {
      const [action = 'list', key = '', ...value] = words(args);
      await blackboardAction(
        session.host,
        session.output,
        action === 'del' ? 'rm' : action,
        key,
        value.length > 0 ? value.join(' ') : undefined,
      );
    },
  },
  {
    name: 'costs',
    usage: '/costs [AGENT]',
    description: 'LLM and web search spend today and this month, and the budgets',
    run: (session, args) => showCosts(session.host, session.output, words(args)[0]),
  },
  {
    name: 'traces',
    usage: '/traces',
    description: 'recent traces (where work entered, hops, agents)',
    run: (session) => showTraces(session.host, session.output),
  },
  {
    name: 'debug',
    usage: '/debug TRACE',
    description: 'every hop of one trace',
    async run(session, args) {
      const [id] = words(args);
      if (!id) return session.output.err('usage: /debug TRACE (ids: /traces)\n');
      await showTraces(session.host, session.output, id);
    },
  },
];
