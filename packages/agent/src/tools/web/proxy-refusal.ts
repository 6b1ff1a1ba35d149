import { EGRESS_REASON_HEADER } from '@openlegion/protocol';
import type { Dispatcher, Pool } from 'undici';

/**
 * The egress proxy would not open a tunnel: its status and its own one-line reason (`egress
 * refused: ... add '@web' ... in mesh.yaml`), for the model and the person reading its answer.
 */
export class EgressProxyRefusal extends Error {
  override readonly name = 'EgressProxyRefusal';

  constructor(
    readonly status: number,
    reason: string,
  ) {
    super(reason);
  }
}

type ConnectOptions = Dispatcher.ConnectOptions<unknown>;
type ConnectData = Dispatcher.ConnectData<unknown>;
type ConnectCallback = (error: Error | null, data: ConnectData) => void;

/**
 * A `clientFactory` for undici's ProxyAgent whose CONNECT keeps the proxy's answer. Without it a
 * refused tunnel (403) surfaces as a bare "Request was cancelled.": ProxyAgent drops the answer's
 * headers and body and throws an abort error, which fetch reports as a cancellation. This client
 * reads the reason the host's proxy puts in {@link EGRESS_REASON_HEADER} and throws it as an
 * {@link EgressProxyRefusal}, which reaches the fetch's error as its cause. Plain-HTTP targets are
 * tunnelled too (ProxyAgent's default), so one path explains http and https refusals alike, and no
 * site can forge a refusal: the site's own answer travels inside the tunnel.
 */
export function refusalReadingClientFactory(
  PoolClass: typeof Pool,
): (origin: URL, options: object) => Dispatcher {
  return (origin, options) => {
    const pool = new PoolClass(origin, options);
    const connect = pool.connect.bind(pool) as (options: ConnectOptions) => Promise<ConnectData>;
    const checked = async (connectOptions: ConnectOptions): Promise<ConnectData> => {
      const data = await connect(connectOptions);
      if (data.statusCode === 200) return data;
      data.socket.on('error', () => {});
      data.socket.destroy();
      throw new EgressProxyRefusal(data.statusCode, refusalText(data));
    };
    // Both call shapes of Dispatcher.connect: ProxyAgent uses the promise one.
    pool.connect = ((connectOptions: ConnectOptions, callback?: ConnectCallback) => {
      const answer = checked(connectOptions);
      if (!callback) return answer;
      answer.then(
        (data) => callback(null, data),
        (error: Error) => callback(error, { opaque: connectOptions.opaque } as ConnectData),
      );
      return undefined;
    }) as Pool['connect'];
    return pool;
  };
}

function refusalText(data: ConnectData): string {
  const reason = data.headers[EGRESS_REASON_HEADER];
  const text = Array.isArray(reason) ? reason[0] : reason;
  return text?.trim() || `the egress proxy answered the tunnel request with HTTP ${data.statusCode}`;
}

/** The proxy's refusal somewhere in an error's chain of causes (fetch wraps it), if any. */
export function egressRefusalIn(error: unknown): EgressProxyRefusal | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current instanceof EgressProxyRefusal) return current;
    current = current.cause;
  }
  return undefined;
}
