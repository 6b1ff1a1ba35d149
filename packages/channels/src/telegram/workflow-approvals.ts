import {
  type ApprovalDecision,
  isOpenLegionError,
  type OperatorNotice,
  type PendingApproval,
} from '@openlegion/protocol';
import { escapeMarkdown } from './reply-lines.js';
import type { InlineKeyboard } from './telegram-api.js';
import { say, type TelegramContext } from './telegram-context.js';
import type { PairedUser } from './telegram-users.js';
import type { CommandSpec } from './user-commands.js';

/** Button data of an approval: `wf:approve:RUN:STEP` or `wf:reject:RUN:STEP`. */
export const APPROVAL_BUTTON_PREFIX = 'wf:';
/** Telegram refuses callback data longer than this (bytes); longer ids get no buttons, only the commands. */
const MAX_CALLBACK_BYTES = 64;

function approvalKeyboard({ run, step }: PendingApproval): InlineKeyboard | undefined {
  const data = (decision: ApprovalDecision['decision']) =>
    `${APPROVAL_BUTTON_PREFIX}${decision}:${run}:${step}`;
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

function approvalText({ run, workflow, step }: PendingApproval): string {
  return `Workflow *${escapeMarkdown(workflow)}*, run \`${run}\`: step *${escapeMarkdown(step)}* waits for your approval \\(/approve ${escapeMarkdown(run)} ${escapeMarkdown(step)}\\)\\.`;
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
  try {
    await context.mesh.decideApproval(decision);
    return `${decision.decision === 'approve' ? 'Approved' : 'Rejected'}: ${decision.step} of ${decision.run}.`;
  } catch (error) {
    if (!isOpenLegionError(error)) throw error;
    return `Not done: ${error.message}`;
  }
}

function decisionCommand(decision: ApprovalDecision['decision']): CommandSpec {
  return {
    summary: `${decision} a workflow step that waits: /${decision} RUN STEP [${decision === 'approve' ? 'note' : 'why'}]`,
    ownerOnly: true,
    async run({ context, chatId, args }) {
      const [run, step, ...words] = args.split(/\s+/).filter(Boolean);
      if (!run || !step) return say(context, chatId, `Usage: /${decision} RUN STEP`);
      const note = words.join(' ');
      const answer = await decide(context, { run, step, decision, ...(note ? { note } : {}) });
      await say(context, chatId, escapeMarkdown(answer));
    },
  };
}

/** `/approvals`, `/approve`, `/reject`: workflow steps that wait for the owner. */
export const APPROVAL_COMMANDS: Record<string, CommandSpec> = {
  approvals: {
    summary: 'workflow steps that wait for your approval',
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

/** A press of an Approve or Reject button: the owner's only. Returns the short answer to show. */
export async function pressApprovalButton(
  context: TelegramContext,
  user: PairedUser,
  data: string,
): Promise<string> {
  if (user.role !== 'owner') return 'Only the owner can approve.';
  const [decision, run, ...step] = data.slice(APPROVAL_BUTTON_PREFIX.length).split(':');
  if ((decision !== 'approve' && decision !== 'reject') || !run || step.length === 0)
    return 'That button is not understood.';
  return decide(context, { run, step: step.join(':'), decision });
}
