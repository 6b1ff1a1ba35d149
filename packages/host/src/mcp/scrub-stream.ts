import { Transform, type TransformCallback } from 'node:stream';
import { OpenLegionError } from '@openlegion/protocol';
import type { SecretScrubber } from '../credentials/index.js';

/** The most of one line held back to be scrubbed whole (a tool result with an image is a few MiB). */
export const MAX_SCRUB_LINE_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * A server's answer on its way to the agent with the server's credential scrubbed out, in the forms
 * an echo would turn it into (see SecretScrubber). Whole lines pass at once: a token holds no line
 * break, so none of its forms spans one, and an SSE event (which ends in a blank line) is never
 * held back. Only the text after the last line break waits for the next chunk, or the end; a line
 * longer than {@link MAX_SCRUB_LINE_BYTES} ends the stream.
 */
export class ScrubStream extends Transform {
  readonly #scrubber: SecretScrubber;
  readonly #server: string;
  #held: Buffer = Buffer.alloc(0);

  constructor(scrubber: SecretScrubber, server: string) {
    super();
    this.#scrubber = scrubber;
    this.#server = server;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    const last = data.lastIndexOf(NEWLINE);
    if (last === -1) {
      this.#held = data;
      if (data.length > MAX_SCRUB_LINE_BYTES)
        done(
          new OpenLegionError(
            'MCP_UPSTREAM_FAILED',
            `MCP server "${this.#server}" sent a line longer than ${MAX_SCRUB_LINE_BYTES} bytes`,
            { details: { server: this.#server } },
          ),
        );
      else done();
      return;
    }
    this.#held = Buffer.from(data.subarray(last + 1));
    done(null, this.#scrubber.scrub(data.subarray(0, last + 1)));
  }

  override _flush(done: TransformCallback): void {
    done(null, this.#held.length === 0 ? undefined : this.#scrubber.scrub(this.#held));
  }
}
