import {
  type ApprovalDecision,
  approvalFromWords,
  isOpenLegionError,
  type OperatorNotice,
  type PendingApproval,
} from '@openlegion/protocol';
import { escapeMarkdown } from '../core/reply-lines.js';
import type { InlineKeyboard } from './telegram-api.js';
import { say, type TelegramContext } from './telegram-context.js';
import type { PairedUser } from './telegram-users.js';
import type { CommandSpec } from './user-commands.js';

/** Button data of an approval: `ap:approve:ID` or `ap:reject:ID`. */
export const APPROVAL_BUTTON_PREFIX = 'ap:';
/** Buttons sent before approvals had ids: `wf:approve:RUN:STEP`; still understood. */
export const WORKFLOW_BUTTON_PREFIX = 'wf:';
/** Telegram refuses callback data longer than this (bytes); longer ids get no buttons, only the commands. */
const MAX_CALLBACK_BYTES = 64;

function approvalKeyboard({ id }: PendingApproval): InlineKeyboard | undefined {
  const data = (decision: ApprovalDecision['decision']) => `${APPROVAL_BUTTON_PREFIX}${decision}:${id}`;
  if (Buffer.byteLength(data('approve')) > MAX_CALLBACK_BYTES) return undefined;
  return {
    inline_keyboard: [
      [
        { text: 'Approve', callback_data: data('approve') },
        { text: 'Reject', callback_data: data('reject') },
      ],
    ],
  };
}

function approvalText(approval: PendingApproval): string {
  const commands = `\\(/approve ${escapeMarkdown(approval.id)}\\)`;
  if (approval.kind === 'workflow_step')
    return `Workflow *${escapeMarkdown(approval.workflow)}*, run \`${approval.run}\`: step *${escapeMarkdown(approval.step)}* waits for your approval ${commands}\\.`;
  // The tool and its arguments come from the agent (bounded and cleaned by the host): escaped.
  return `Agent *${escapeMarkdown(approval.agent)}* wants to run *${escapeMarkdown(approval.tool)}* ${escapeMarkdown(approval.arguments_preview)} ${commands}\\.`;
}

async function offer(context: TelegramContext, chatId: number, approval: PendingApproval): Promise<void> {
  const keyboard = approvalKeyboard(approval);
  await say(context, chatId, approvalText(approval), keyboard ? { keyboard } : {});
}

/**
 * Tell the owner (their private chat) what the mesh wants them to know; an approval comes with
 * Approve and Reject buttons. Without an owner there is nobody to tell.
 */
export async function tellOwner(context: TelegramContext, notice: OperatorNotice): Promise<void> {
  const owner = context.users.owner();
  if (!owner) return;
  if (notice.approval) return offer(context, owner.userId, notice.approval);
  await say(context, owner.userId, escapeMarkdown(notice.text));
}

/** Approve or reject; the answer names what happened or why it could not. */
async function decide(context: TelegramContext, decision: ApprovalDecision): Promise<string> {
  const approval = context.mesh.pendingApprovals().find(({ id }) => id === decision.id);
  try {
    await context.mesh.decideApproval(decision);
    const what =
      approval?.kind === 'workflow_step'
        ? `${approval.step} of ${approval.run}`
        : approval?.kind === 'tool_call'
          ? `${approval.agent}'s call of ${approval.tool}`
          : decision.id;
    return `${decision.decision === 'approve' ? 'Approved' : 'Rejected'}: ${what}.`;
  } catch (error) {
    if (!isOpenLegionError(error)) throw error;
    return `Not done: ${error.message}`;
  }
}

function decisionCommand(decision: ApprovalDecision['decision']): CommandSpec {
  return {
    summary: `${decision} what waits (a tool call, a workflow step): /${decision} ID [${decision === 'approve' ? 'note' : 'why'}]`,
    ownerOnly: true,
    async run({ context, chatId, args }) {
      const parsed = approvalFromWords(args.split(/\s+/).filter(Boolean));
      if (!parsed) return say(context, chatId, `Usage: /${decision} ID`);
      const answer = await decide(context, {
        id: parsed.id,
        decision,
        ...(parsed.note ? { note: parsed.note } : {}),
      });
      await say(context, chatId, escapeMarkdown(answer));
    },
  };
}

/** `/approvals`, `/approve`, `/reject`: what waits for the owner. */
export const APPROVAL_COMMANDS: Record<string, CommandSpec> = {
  approvals: {
    summary: 'what waits for your approval (tool calls, workflow steps)',
    ownerOnly: true,
    async run({ context, chatId }) {
      const pending = context.mesh.pendingApprovals();
      if (pending.length === 0) return say(context, chatId, 'Nothing waits for approval\\.');
      for (const approval of pending) await offer(context, chatId, approval);
    },
  },
  approve: decisionCommand('approve'),
  reject: decisionCommand('reject'),
};

/** Whether callback data is an approval button's (today's, or one sent before ids). */
export function isApprovalButton(data: string): boolean {
  return data.startsWith(APPROVAL_BUTTON_PREFIX) || data.startsWith(WORKFLOW_BUTTON_PREFIX);
}

/** A press of an Approve or Reject button: the owner's only. Returns the short answer to show. */
export async function pressApprovalButton(
  context: TelegramContext,
  user: PairedUser,
  data: string,
): Promise<string> {
  if (user.role !== 'owner') return 'Only the owner can approve.';
  const legacy = data.startsWith(WORKFLOW_BUTTON_PREFIX);
  const [decision, ...rest] = data.slice(APPROVAL_BUTTON_PREFIX.length).split(':');
  // A legacy button holds RUN:STEP, which is that step's id.
  const id = rest.join(':');
  if ((decision !== 'approve' && decision !== 'reject') || !id || (legacy && rest.length < 2))
    return 'That button is not understood.';
  return decide(context, { id, decision });
}
