import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { OpenLegionError } from '@openlegion/protocol';

/**
 * The most one event of a remote server's legacy SSE stream may hold before its end: a whole
 * event is kept until its blank line (it may be the endpoint event), and a tool result with an
 * image can be a few MiB.
 */
export const MAX_SSE_EVENT_BYTES = 8 * 1024 * 1024;

const EVENT_END = /\r\n\r\n|\n\n|\r\r/;
const LINE_END = /\r\n|\n|\r/;

/**
 * The legacy SSE transport (MCP 2024-11-05) as it passes the host: the server's first event is
 * `endpoint`, whose data is the URL the client POSTs its messages to. This stream hands each whole
 * event on unchanged but that one: `rewrite` turns the server's URL into the host's own path (or
 * throws to refuse it), so the agent POSTs back through the host. The stream fails when the first
 * event is not an endpoint or an event passes {@link MAX_SSE_EVENT_BYTES} before it; after it,
 * such a violation (or a second endpoint: a server may not move the agent) ends the stream and is
 * emitted as `violation`. `endpoint` resolves with the rewritten path.
 */
export class SseEndpointRewriter extends Transform {
  readonly endpoint: Promise<string>;
  readonly #rewrite: (data: string) => string;
  readonly #server: string;
  // A character split across two chunks is joined before it is read.
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';
  #seen = false;
  /** Ended after a violation: what the server sends after it is dropped. */
  #ended = false;
  #settle!: { resolve(path: string): void; reject(error: Error): void };

  constructor(server: string, rewrite: (data: string) => string) {
    super();
    this.#server = server;
    this.#rewrite = rewrite;
    this.endpoint = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
    });
    // Settled by the first event, or by the stream failing first; never left unhandled.
    this.endpoint.catch(() => {});
    this.once('error', (error) => this.#settle.reject(error));
    this.once('end', () =>
      this.#settle.reject(this.#refusal('ended its event stream before sending an endpoint')),
    );
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.#ended) {
      done();
      return;
    }
    this.#pending += this.#decoder.write(chunk);
    let out = '';
    try {
      for (let match = EVENT_END.exec(this.#pending); match; match = EVENT_END.exec(this.#pending)) {
        const end = match.index + match[0].length;
        const event = this.#pending.slice(0, end);
        this.#pending = this.#pending.slice(end);
        out += this.#pass(event, match[0]);
      }
      if (Buffer.byteLength(this.#pending) > MAX_SSE_EVENT_BYTES)
        throw this.#refusal(`sent an event longer than ${MAX_SSE_EVENT_BYTES} bytes`);
    } catch (error) {
      // Before the endpoint the stream fails (the agent gets the host's error instead); after it the
      // agent keeps what came before and the stream ends, as when a server closes it.
      if (!this.#seen) {
        done(error as Error);
        return;
      }
      this.#ended = true;
      this.#pending = '';
      if (out !== '') this.push(out);
      this.push(null);
      this.emit('violation', error);
      done();
      return;
    }
    done(null, out === '' ? undefined : out);
  }

  /** One whole event, as the agent gets it. */
  #pass(event: string, terminator: string): string {
    const fields = event.slice(0, -terminator.length).split(LINE_END);
    const name = fields.find((line) => line.startsWith('event:'));
    const isEndpoint = name !== undefined && fieldValue(name) === 'endpoint';
    const isComment = fields.every((line) => line === '' || line.startsWith(':'));
    if (!this.#seen && !isComment && !isEndpoint)
      throw this.#refusal(
        `sent another event before its endpoint event (is mcp.servers.${this.#server}.url its SSE URL?)`,
      );
    if (!isEndpoint) return event;
    if (this.#seen) throw this.#refusal('sent a second endpoint event; a server may name its endpoint once');
    const data = fields
      .filter((line) => line.startsWith('data:'))
      .map(fieldValue)
      .join('\n');
    const path = this.#rewrite(data);
    this.#seen = true;
    this.#settle.resolve(path);
    return `event: endpoint\ndata: ${path}\n\n`;
  }

  #refusal(what: string): OpenLegionError {
    return new OpenLegionError('MCP_UPSTREAM_FAILED', `MCP server "${this.#server}" ${what}`, {
      details: { server: this.#server },
    });
  }
}

/** A field's value: after the colon, one leading space dropped (the SSE spec). */
function fieldValue(line: string): string {
  const value = line.slice(line.indexOf(':') + 1);
  return value.startsWith(' ') ? value.slice(1) : value;
}
