import type { IncomingHttpHeaders } from 'node:http';
import type { Agent, Dispatcher } from 'undici';

/** A provider's answer: status and headers read, body not yet (a Node stream of its bytes). */
export type UpstreamAnswer = Dispatcher.ResponseData;

/** What aborts a call: an AbortSignal, or an emitter of 'abort' with `aborted` and `reason`. */
export type UpstreamSignal = Dispatcher.RequestOptions['signal'];

/** One POST to a provider, already in the provider's shape. */
export interface UpstreamCallSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The provider connections, opened at the first call; `destroy` closes them (if any). */
export interface UpstreamPool {
  agent(): Promise<Agent>;
  destroy(): Promise<void>;
}

/**
 * The connections to the providers: one keep-alive pool per origin, shared by every call. Calls go
 * through undici's `request` rather than `fetch`: no WHATWG Request/Headers/stream objects per
 * call, which were most of the proxy's own CPU time per call. `request` follows no redirect (it has
 * no redirect handling unless asked); the caller turns a 3xx into a failure. undici is loaded at
 * the first call, not at start-up, where it cost ~60 ms before the first agent could start.
 */
export function createUpstreamPool(timeouts: { connectMs: number; headersMs: number }): UpstreamPool {
  let opened: Promise<Agent> | undefined;
  const agent = () =>
    (opened ??= loadUndici().then(
      ({ Agent }) =>
        new Agent({
          // The two timeouts before the first byte, kept by undici per connection and per call (no
          // timer of ours per call); a stream in progress is cut only by undici's body timeout (5 min
          // without a byte), as with fetch before.
          connect: { timeout: timeouts.connectMs },
          headersTimeout: timeouts.headersMs,
        }),
    ));
  return {
    agent,
    destroy: async () => {
      if (opened) await (await opened).destroy();
    },
  };
}

/** Origin and path of each provider URL, split once (there are a few, fixed by mesh.yaml). */
const splitUrls = new Map<string, { origin: string; path: string }>();

type Undici = typeof import('undici');

/**
 * undici, a CommonJS package: Node's loader gives its exports by name (and as `default`), a bundle's
 * dynamic import only as `default` (the CLI runs bundled), so take them from `default` when it has them.
 */
async function loadUndici(): Promise<Undici> {
  const loaded: Undici & { default?: Undici } = await import('undici');
  return loaded.default?.Agent ? loaded.default : loaded;
}

/** POST `call` through `pool`; rejects when the provider cannot be reached or `signal` aborts. */
export async function requestUpstream(
  pool: UpstreamPool,
  call: UpstreamCallSpec,
  signal: UpstreamSignal,
): Promise<UpstreamAnswer> {
  let target = splitUrls.get(call.url);
  if (!target) {
    const url = new URL(call.url);
    target = { origin: url.origin, path: `${url.pathname}${url.search}` };
    if (splitUrls.size < 1_000) splitUrls.set(call.url, target);
  }
  return (await pool.agent()).request({
    origin: target.origin,
    path: target.path,
    method: 'POST',
    // The body goes to the client as it comes, so it must come unencoded (fetch decoded it).
    headers: { ...call.headers, 'accept-encoding': 'identity' },
    body: call.body,
    signal,
  });
}

/** One header's value (the first, when a provider repeats it); null when absent. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
