import { type ChatEvent, chatEventSchema } from '@openlegion/protocol';

/** Parse an SSE body into chat events, checking each frame's `event:` name against its data. */
export function parseSseEvents(body: string): ChatEvent[] {
  return body
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const name = /^event: (.+)$/m.exec(frame)?.[1];
      const data = /^data: (.+)$/m.exec(frame)?.[1];
      const event = chatEventSchema.parse(JSON.parse(data ?? 'null'));
      if (event.type !== name) throw new Error(`frame "${name}" carries a ${event.type} event`);
      return event;
    });
}

/** POST a chat and collect the whole SSE answer. */
export async function postChat(
  agentUrl: string,
  token: string,
  body: { message: string; conversation_id?: string },
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
    events: response.ok ? parseSseEvents(text) : [],
  };
}
