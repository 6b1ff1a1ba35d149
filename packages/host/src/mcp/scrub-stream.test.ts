import { describe, expect, it } from 'vitest';
import { SecretScrubber } from '../credentials/index.js';
import { LineScrubber, MAX_SCRUB_LINE_BYTES } from './scrub-stream.js';

const scrubber = () => new LineScrubber(new SecretScrubber(new Map([['T', 'sekrit-token-value']])), 's');

describe('LineScrubber', () => {
  it('passes whole lines at once and holds only a line not yet ended', () => {
    const lines = scrubber();
    const out = ['data: a\n\ndata: sekrit-', 'token-value\n\n', 'tail sekrit-token-value'].map((chunk) =>
      lines.push(Buffer.from(chunk)),
    );
    expect([...out, lines.end()]).toEqual([
      'data: a\n\n',
      'data: [$CRED{T}]\n\n',
      undefined,
      'tail [$CRED{T}]',
    ]);
  });

  it('refuses a line past the cap', () => {
    expect(() => scrubber().push(Buffer.alloc(MAX_SCRUB_LINE_BYTES + 1, 0x78))).toThrow(
      `MCP server "s" sent a line longer than ${MAX_SCRUB_LINE_BYTES} bytes`,
    );
  });
});
