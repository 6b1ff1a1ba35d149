import {
  type ApprovalDecision,
  approvalFromWords,
  isOpenLegionError,
  type OperatorNotice,
  type PendingApproval,
} from '@openlegion/protocol';
import type { ChannelUser } from '../core/channel-users.js';
import { escapeMarkdown } from '../core/reply-lines.js';
import { markdownToMrkdwn } from './markdown-to-mrkdwn.js';
import { type SlackContext, say } from './slack-context.js';
import { SLACK_SECTION_LIMIT, type SlackBlock } from './slack-replies.js';

/** The action ids of an approval's buttons; the button's value is the approval id. */
export const APPROVE_ACTION = 'openlegion_approve';
export const REJECT_ACTION = 'openlegion_reject';
/** Slack refuses a button value longer than this; longer ids get only the commands. */
const MAX_BUTTON_VALUE = 2000;

function approvalText(approval: PendingApproval): string {
  const how = `\\(or \`!approve ${approval.id}\`\\)`;
  if (approval.kind === 'workflow_step')
    return `Workflow **${escapeMarkdown(approval.workflow)}**, run \`${approval.run}\`: step **${escapeMarkdown(approval.step)}** waits for your approval ${how}\\.`;
  return `Agent **${escapeMarkdown(approval.agent)}** wants to run **${escapeMarkdown(approval.tool)}** ${escapeMarkdown(approval.arguments_preview)} ${how}\\.`;
}

/** A section (cut to what a section holds) and Approve / Reject buttons. */
export function approvalBlocks(mrkdwn: string, approval: PendingApproval): SlackBlock[] {
  const text = mrkdwn.length > SLACK_SECTION_LIMIT ? `${mrkdwn.slice(0, SLACK_SECTION_LIMIT - 1)}…` : mrkdwn;
  const blocks: SlackBlock[] = [{ type: 'section', text: { type: 'mrkdwn', text } }];
  if (approval.id.length > MAX_BUTTON_VALUE) return blocks;
  blocks.push({
    type: 'actions',
    block_id: 'approval',
    elements: [
      {
        type: 'button',
        action_id: APPROVE_ACTION,
        text: { type: 'plain_text', text: 'Approve' },
        style: 'primary',
        value: approval.id,
      },
      {
        type: 'button',
        action_id: REJECT_ACTION,
        text: { type: 'plain_text', text: 'Reject' },
        style: 'danger',
        value: approval.id,
      },
    ],
  });
  return blocks;
}

async function offer(context: SlackContext, conversation: string, approval: PendingApproval): Promise<void> {
  const markdown = approvalText(approval);
  await say(context, conversation, markdown, approvalBlocks(markdownToMrkdwn(markdown), approval));
}

/** Tell the owner (in their DM) what the mesh wants them to know; an approval comes with buttons. */
export async function tellSlackOwner(context: SlackContext, notice: OperatorNotice): Promise<void> {
  const dm = context.users.owner()?.ownerConversation;
  if (!dm) return;
  if (notice.approval) return offer(context, dm, notice.approval);
  await say(context, dm, escapeMarkdown(notice.text));
}

/** Approve or reject; the sentence saying what happened or why not. */
export async function decide(context: SlackContext, decision: ApprovalDecision): Promise<string> {
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

/** `!approve ID [note]` / `!reject ID [why]`: the answer to show. */
export async function decideByWords(
  context: SlackContext,
  decision: ApprovalDecision['decision'],
  args: string,
): Promise<string> {
  const parsed = approvalFromWords(args.split(/\s+/).filter(Boolean));
  if (!parsed) return `Usage: !${decision} ID`;
  return decide(context, { id: parsed.id, decision, ...(parsed.note ? { note: parsed.note } : {}) });
}

/** `!approvals`: each pending approval again, with its buttons. */
export async function listApprovals(context: SlackContext, conversation: string): Promise<void> {
  const pending = context.mesh.pendingApprovals();
  if (pending.length === 0) {
    await say(context, conversation, 'Nothing waits for approval\\.');
    return;
  }
  for (const approval of pending) await offer(context, conversation, approval);
}

/**
 * A press of Approve or Reject (block_actions): the owner's only. The message's buttons are then
 * replaced by the outcome, so it cannot be pressed twice.
 */
export async function pressSlackApproval(
  context: SlackContext,
  press: { user: string; actionId: string; value: string; channel?: string; messageTs?: string },
): Promise<string> {
  const user: ChannelUser | undefined = context.users.get(press.user);
  if (!user) return 'You are not paired.';
  if (user.role !== 'owner') return 'Only the owner can approve.';
  const decision = press.actionId === APPROVE_ACTION ? 'approve' : 'reject';
  const answer = await decide(context, { id: press.value, decision });
  // A second press (or a replayed one) finds nothing waiting: the message keeps saying what was decided.
  if (press.channel && press.messageTs && !answer.startsWith('Not done')) {
    await context.api.chat.update({
      channel: press.channel,
      ts: press.messageTs,
      text: answer,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: answer.slice(0, SLACK_SECTION_LIMIT) } }],
    });
  }
  return answer;
}
