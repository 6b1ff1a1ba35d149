import { readChatEvents } from '@openlegion/infra/sse';
import { type ChatEvent, chatEventError, type LaneMode, OpenLegionError } from '@openlegion/protocol';
import { renderEvent } from '../chat-rendering.js';
import type { CliOutput } from '../cli-output.js';
import { errorFromResponse, type HostConnection } from '../host-connection.js';

export interface SendResult {
  text: string;
  conversationId: string;
}

/**
 * Send one message to an agent through the host and stream the reply to `output` as it arrives.
 * Rejects with the agent's or host's error; the caller decides the exit code.
 */
export async function sendMessage(
  host: HostConnection,
  agent: string,
  message: string,
  output: CliOutput,
  options: {
    conversationId?: string;
    signal?: AbortSignal;
    mode?: LaneMode;
    /** Sees every event of the reply (the REPL keeps the turn's recall report for `/debug`). */
    onEvent?: (event: ChatEvent) => void;
  } = {},
): Promise<SendResult> {
  const body = {
    message,
    ...(options.conversationId ? { conversation_id: options.conversationId } : {}),
    ...(options.mode ? { mode: options.mode } : {}),
  };
  const response = await host.request(
    'POST',
    `/api/agents/${encodeURIComponent(agent)}/chat`,
    body,
    options.signal,
  );
  if (!response.ok || !response.body) throw await errorFromResponse(response);
  const state = { atLineStart: true };
  for await (const event of readChatEvents(response.body)) {
    renderEvent(event, output, state);
    options.onEvent?.(event);
    if (event.type === 'error') throw chatEventError(event, `${agent}: `);
    if (event.type === 'done') return { text: event.text, conversationId: event.conversation_id };
  }
  throw new OpenLegionError('AGENT_NOT_READY', `${agent} closed the stream before finishing its reply`);
}
