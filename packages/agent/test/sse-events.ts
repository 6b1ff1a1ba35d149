import { readSseFrames } from '@openlegion/infra/sse';
import { type ChatEvent, chatEventSchema } from '@openlegion/protocol';

/** Parse an SSE body into chat events, checking each frame's `event:` name against its data. */
export async function parseSseEvents(body: string): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const frame of readSseFrames([new TextEncoder().encode(body)])) {
    const event = chatEventSchema.parse(JSON.parse(frame.data));
    if (event.type !== frame.event) throw new Error(`frame "${frame.event}" carries a ${event.type} event`);
    events.push(event);
  }
  return events;
}

/** POST a chat and collect the whole SSE answer. */
export async function postChat(
  agentUrl: string,
  token: string,
  body: { message: string; conversation_id?: string; trace_id?: string },
): Promise<{ status: number; contentType: string | null; events: ChatEvent[] }> {
  const response = await fetch(`${agentUrl}/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    events: response.ok ? await parseSseEvents(text) : [],
  };
}
