// Calls to the host's operator API with the session cookie (sent by the browser, HttpOnly) and, on
// every change, the session's CSRF token. A 401 sends the page back to sign-in.

/** The CSRF token of this tab's session; null when signed out. */
export const csrf: { value: string | null } = { value: null };
/** Told when the host says the session is gone, so the app shows sign-in with the reason. */
export const session: { onSignedOut: (reason: string) => void } = { onSignedOut: () => {} };

/** An error body of the host: `{ error: { code, message } }`. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function failure(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    return new ApiError(
      body.error?.code ?? 'HTTP',
      body.error?.message ?? response.statusText,
      response.status,
    );
  } catch {
    return new ApiError('HTTP', `${response.status} ${response.statusText}`, response.status);
  }
}

/** A request with the session; throws ApiError with the host's code and message. */
export async function call(
  method: string,
  path: string,
  body?: unknown,
  init: RequestInit = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf.value) headers['x-csrf-token'] = csrf.value;
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...init,
  });
  if (!response.ok) {
    const error = await failure(response);
    if (response.status === 401) {
      csrf.value = null;
      session.onSignedOut(error.message);
    }
    throw error;
  }
  return response;
}

export async function getJson<T>(path: string): Promise<T> {
  return (await (await call('GET', path)).json()) as T;
}

export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  return (await (await call('POST', path, body)).json()) as T;
}

/** Sign in: the operator token goes once as a bearer header; the host answers with the cookie. */
export async function signIn(token: string): Promise<void> {
  const response = await fetch('/ui/api/login', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    credentials: 'same-origin',
  });
  if (!response.ok) throw await failure(response);
  const answer = (await response.json()) as { csrf: string };
  csrf.value = answer.csrf;
}

/** Whether a session cookie is live (after a reload): fetches its CSRF token. */
export async function resume(): Promise<boolean> {
  try {
    const response = await fetch('/ui/api/session', { credentials: 'same-origin' });
    if (!response.ok) return false;
    const answer = (await response.json()) as { csrf: string | null };
    csrf.value = answer.csrf;
    return answer.csrf !== null;
  } catch {
    return false;
  }
}

export async function signOut(): Promise<void> {
  await call('POST', '/ui/api/logout', {}).catch(() => {});
  csrf.value = null;
}

/** One SSE frame of a streamed answer. */
export interface SseEvent {
  event: string;
  data: string;
}

/** Read an SSE body frame by frame (chat answers stream over the POST's own response). */
export async function* readSse(response: Response): AsyncGenerator<SseEvent> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) return;
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}

export const usd = (value: number | null | undefined) =>
  value === null || value === undefined
    ? '—'
    : `$${value < 0.01 && value > 0 ? value.toFixed(5) : value.toFixed(2)}`;
export const time = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '—' : new Date(ms).toLocaleTimeString();
