import {
  type ApprovalDecision,
  isOpenLegionError,
  type OperatorNotice,
  type PendingApproval,
} from '@openlegion/protocol';
import type { ChannelUser } from '../core/channel-users.js';
import { type DiscordContext, say } from './discord-context.js';
import type { DiscordButton } from './discord-replies.js';

/** A button's custom_id: `ap:approve:ID` or `ap:reject:ID` (as Telegram's callback data). */
export const APPROVAL_BUTTON_PREFIX = 'ap:';
/** Discord refuses a custom_id longer than this; longer ids get no buttons, only the commands. */
const MAX_CUSTOM_ID_CHARS = 100;

function approvalButtons({ id }: PendingApproval): DiscordButton[] | undefined {
  const customId = (decision: ApprovalDecision['decision']) => `${APPROVAL_BUTTON_PREFIX}${decision}:${id}`;
  if (customId('approve').length > MAX_CUSTOM_ID_CHARS) return undefined;
  return [
    { label: 'Approve', customId: customId('approve'), style: 'success' },
    { label: 'Reject', customId: customId('reject'), style: 'danger' },
  ];
}

/** Inline code that cannot be broken out of: backticks in the text are dropped. */
const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

export function approvalText(approval: PendingApproval): string {
  const commands = `(/approve ${approval.id})`;
  if (approval.kind === 'workflow_step')
    return `Workflow **${approval.workflow}**, run ${code(approval.run)}: step **${approval.step}** waits for your approval ${commands}.`;
  // The tool and its arguments come from the agent (bounded and cleaned by the host): shown as code.
  return `Agent **${approval.agent}** wants to run ${code(approval.tool)} ${code(approval.arguments_preview)} ${commands}.`;
}

export async function offerApproval(
  context: DiscordContext,
  channelId: string,
  approval: PendingApproval,
): Promise<void> {
  const buttons = approvalButtons(approval);
  await say(context, channelId, approvalText(approval), buttons ? { buttons } : {});
}

/** Tell the owner in their DM what the mesh wants them to know; an approval comes with buttons. */
export async function tellOwner(context: DiscordContext, notice: OperatorNotice): Promise<void> {
  const owner = context.users.owner();
  if (!owner) return;
  const channelId = owner.ownerConversation ?? (await context.dmChannel(owner.userId));
  if (notice.approval) return offerApproval(context, channelId, notice.approval);
  await say(context, channelId, notice.text);
}

/** Approve or reject; the answer names what happened or why it could not. */
export async function decide(context: DiscordContext, decision: ApprovalDecision): Promise<string> {
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

/** A press of an Approve or Reject button (the owner's only); the answer to show. */
export async function pressApprovalButton(
  context: DiscordContext,
  user: ChannelUser | undefined,
  customId: string,
): Promise<string> {
  if (user?.role !== 'owner') return 'Only the owner can approve.';
  const [decision, ...rest] = customId.slice(APPROVAL_BUTTON_PREFIX.length).split(':');
  const id = rest.join(':');
  if ((decision !== 'approve' && decision !== 'reject') || !id) return 'That button is not understood.';
  return decide(context, { id, decision });
}
