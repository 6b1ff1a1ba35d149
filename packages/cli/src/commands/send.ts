import { readChatEvents } from '@openlegion/infra/sse';
import { OpenLegionError } from '@openlegion/protocol';
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
  options: { conversationId?: string; signal?: AbortSignal } = {},
): Promise<SendResult> {
  const response = await host.request(
    'POST',
    `/api/agents/${encodeURIComponent(agent)}/chat`,
    { message, ...(options.conversationId ? { conversation_id: options.conversationId } : {}) },
    options.signal,
  );
  if (!response.ok || !response.body) throw await errorFromResponse(response);
  let text = '';
  for await (const event of readChatEvents(response.body)) {
    switch (event.type) {
      case 'text_delta':
        text += event.text;
        output.out(event.text);
        break;
      case 'notice':
        output.err(`[${agent}] ${event.message}\n`);
        break;
      case 'error':
        if (text) output.out('\n');
        throw new OpenLegionError('AGENT_LLM_FAILED', `${agent}: ${event.message}`);
      case 'done':
        if (!text.endsWith('\n')) output.out('\n');
        return { text: event.text, conversationId: event.conversation_id };
      default:
        break;
    }
  }
  throw new OpenLegionError('AGENT_NOT_READY', `${agent} closed the stream before finishing its reply`);
}
