import {
  type ChatRequest,
  type HeartbeatRequest,
  type SteerRequest,
  type TaskRequest,
  TRACEPARENT_HEADER,
} from '@openlegion/protocol';

/** How the host calls an agent's own API, with the agent's bearer token. */
export interface AgentClient {
  /**
   * `POST {url}/chat`. Resolves to the agent's response, body unread (an SSE stream when OK);
   * rejects when the agent cannot be reached or `signal` aborts. `traceparent`: the turn's span
   * (W3C), which the agent passes on with its calls to the host.
   */
  relayChat(
    url: string,
    token: string,
    body: ChatRequest,
    signal?: AbortSignal,
    traceparent?: string,
  ): Promise<Response>;
  /** `POST {url}/task`: the same SSE answer as a chat, for work in task mode. */
  relayTask(
    url: string,
    token: string,
    body: TaskRequest,
    signal?: AbortSignal,
    traceparent?: string,
  ): Promise<Response>;
  /** `POST {url}/chat/steer`: the agent's answer, body unread. */
  steer(url: string, token: string, body: SteerRequest): Promise<Response>;
  /** `POST {url}/heartbeat`: the agent's answer, body unread. */
  heartbeat(url: string, token: string, body: HeartbeatRequest, signal?: AbortSignal): Promise<Response>;
}

/** The agent client over HTTP (`fetch` replaceable for tests). */
export function createAgentClient(options: { fetch?: typeof fetch } = {}): AgentClient {
  const fetchAgent = options.fetch ?? fetch;
  const post = (
    url: string,
    path: string,
    token: string,
    body: unknown,
    accept: string,
    signal?: AbortSignal,
    traceparent?: string,
  ) =>
    fetchAgent(`${url.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept,
        ...(traceparent ? { [TRACEPARENT_HEADER]: traceparent } : {}),
      },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  return {
    relayChat: (url, token, body, signal, traceparent) =>
      post(url, '/chat', token, body, 'text/event-stream', signal, traceparent),
    relayTask: (url, token, body, signal, traceparent) =>
      post(url, '/task', token, body, 'text/event-stream', signal, traceparent),
    steer: (url, token, body) => post(url, '/chat/steer', token, body, 'application/json'),
    heartbeat: (url, token, body, signal) => post(url, '/heartbeat', token, body, 'application/json', signal),
  };
}
