import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { OpenLegionError } from '@openlegion/protocol';
import type { SecretScrubber } from '../credentials/index.js';

/** The most of one line held back to be scrubbed whole (a tool result with an image is a few MiB). */
export const MAX_SCRUB_LINE_BYTES = 16 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * A server's answer, chunk by chunk, with the server's credential scrubbed out in the forms an echo
 * would turn it into (see SecretScrubber). Whole lines pass at once: a token holds no line break,
 * so none of its forms spans one, and an SSE event (which ends in a blank line) is never held back.
 * Only the text after the last line break waits for the next chunk, or the end.
 */
export class LineScrubber {
  readonly #scrubber: SecretScrubber;
  readonly #server: string;
  #held: Buffer = Buffer.alloc(0);

  constructor(scrubber: SecretScrubber, server: string) {
    this.#scrubber = scrubber;
    this.#server = server;
  }

  /** What of `chunk` (after what was held) may go now, scrubbed; throws past the line cap. */
  push(chunk: Buffer): string | undefined {
    const data = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    const last = data.lastIndexOf(NEWLINE);
    if (last === -1) {
      this.#held = data;
      if (data.length > MAX_SCRUB_LINE_BYTES)
        throw new OpenLegionError(
          'MCP_UPSTREAM_FAILED',
          `MCP server "${this.#server}" sent a line longer than ${MAX_SCRUB_LINE_BYTES} bytes`,
          { details: { server: this.#server } },
        );
      return undefined;
    }
    this.#held = last + 1 === data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(last + 1));
    return this.#scrubber.scrub(data.subarray(0, last + 1));
  }

  /** The rest, scrubbed, once the answer has ended. */
  end(): string | undefined {
    return this.#held.length === 0 ? undefined : this.#scrubber.scrub(this.#held);
  }
}

/**
 * Pump `body` into `response` (through `scrubber`, when the server has a credential), paced by the agent's reading (the body pauses
 * while the response's buffer is full). No stream object sits in between: this is every call's
 * path. The body failing, or a line past the cap, ends the response; the response closing early
 * drops the body (the caller's signal aborts its request).
 */
export function pumpAnswer(
  body: Readable,
  response: ServerResponse,
  scrubber: LineScrubber | undefined,
  onFailure: (error: Error) => void,
): void {
  const fail = (error: Error) => {
    // The agent leaving drops the body too; that is no failure to report.
    if (!response.destroyed) onFailure(error);
    body.destroy();
    response.destroy();
  };
  body.on('data', (chunk: Buffer) => {
    let out: string | Buffer | undefined = chunk;
    try {
      if (scrubber) out = scrubber.push(chunk);
    } catch (error) {
      return fail(error as Error);
    }
    if (out !== undefined && !response.write(out)) {
      body.pause();
      response.once('drain', () => body.resume());
    }
  });
  body.once('end', () => response.end(scrubber?.end()));
  body.once('error', fail);
  response.once('close', () => {
    if (!body.readableEnded) body.destroy();
  });
}
