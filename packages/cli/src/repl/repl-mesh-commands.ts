import {
  approvalFromWords,
  workflowListingsAnswerSchema,
  workflowRunsAnswerSchema,
} from '@openlegion/protocol';
import { approvalLine, decideApproval, decidedLine, fetchApprovals } from '../commands/approvals.js';
import { blackboardAction, showCosts, showTraces } from '../commands/mesh-state.js';
import { collectInput, printListing, requestRun } from '../commands/workflow.js';
import { drawRun } from '../commands/workflow-dag-text.js';
import { requestJson } from '../host-connection.js';
import type { ReplCommand } from './repl-commands.js';
import type { ReplSession } from './repl-session.js';

const words = (text: string) => text.trim().split(/\s+/).filter(Boolean);
const runPath = (run: string) => `/api/workflows/runs/${encodeURIComponent(run)}`;

/**
 * Print the approvals that started waiting since the last look, so the operator sees them at the
 * prompt wherever they are. Best effort: a host that cannot answer just offers nothing this time.
 */
export async function offerNewApprovals(session: ReplSession): Promise<void> {
  let pending: Awaited<ReturnType<typeof fetchApprovals>>;
  try {
    pending = await fetchApprovals(session.host);
  } catch {
    return;
  }
  for (const approval of pending) {
    if (session.offeredApprovals.has(approval.id)) continue;
    session.offeredApprovals.add(approval.id);
    session.output.out(`${approvalLine(approval)}\n`);
  }
}

function decision(name: 'approve' | 'reject'): ReplCommand {
  return {
    name,
    usage: `/${name} ID [${name === 'approve' ? 'note' : 'why'}]`,
    description:
      name === 'approve'
        ? 'let a tool call or workflow step that waits run (ids: /approvals; RUN STEP works too)'
        : 'refuse a tool call (it does not run) or a workflow step (its run stops)',
    async run(session, args) {
      const parsed = approvalFromWords(words(args));
      if (!parsed) return session.output.err(`usage: /${name} ID [note]  (or /${name} RUN STEP)\n`);
      const approval = await decideApproval(session.host, parsed.id, name, parsed.note);
      session.output.out(`${decidedLine(approval, name)}\n`);
      if (approval.kind === 'workflow_step')
        session.output.out(drawRun(await requestRun(session.host, 'GET', runPath(approval.run)), Date.now()));
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
    description: 'what waits for your approval: tool calls that ask first, workflow steps',
    async run(session) {
      const pending = await fetchApprovals(session.host);
      if (pending.length === 0) session.output.out('nothing waits for approval\n');
      for (const approval of pending) {
        session.offeredApprovals.add(approval.id);
        session.output.out(`${approvalLine(approval)}\n`);
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
