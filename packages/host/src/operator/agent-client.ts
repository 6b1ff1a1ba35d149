import type { ChatRequest } from '@openlegion/protocol';

/** How the host calls an agent's own API. */
export interface AgentClient {
  /**
   * `POST {url}/chat` with the agent's bearer token. Resolves to the agent's response, body unread
   * (an SSE stream when OK); rejects when the agent cannot be reached or `signal` aborts.
   */
  relayChat(url: string, token: string, body: ChatRequest, signal?: AbortSignal): Promise<Response>;
}

/** The agent client over HTTP (`fetch` replaceable for tests). */
export function createAgentClient(options: { fetch?: typeof fetch } = {}): AgentClient {
  const fetchAgent = options.fetch ?? fetch;
  return {
    relayChat: (url, token, body, signal) =>
      fetchAgent(`${url.replace(/\/+$/, '')}/chat`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      }),
  };
}
