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
 * event is not an endpoint, when a second endpoint comes (a server may not move the agent), or when
 * an event passes {@link MAX_SSE_EVENT_BYTES}. `endpoint` resolves with the rewritten path.
 */
export class SseEndpointRewriter extends Transform {
  readonly endpoint: Promise<string>;
  readonly #rewrite: (data: string) => string;
  readonly #server: string;
  // A character split across two chunks is joined before it is read.
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';
  #seen = false;
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
    this.#pending += this.#decoder.write(chunk);
    let out = '';
    for (let match = EVENT_END.exec(this.#pending); match; match = EVENT_END.exec(this.#pending)) {
      const end = match.index + match[0].length;
      const event = this.#pending.slice(0, end);
      this.#pending = this.#pending.slice(end);
      try {
        out += this.#pass(event, match[0]);
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    if (Buffer.byteLength(this.#pending) > MAX_SSE_EVENT_BYTES)
      done(this.#refusal(`sent an event longer than ${MAX_SSE_EVENT_BYTES} bytes`));
    else done(null, out === '' ? undefined : out);
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
    this.#seen = true;
    const data = fields
      .filter((line) => line.startsWith('data:'))
      .map(fieldValue)
      .join('\n');
    const path = this.#rewrite(data);
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
