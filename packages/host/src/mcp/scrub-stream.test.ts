import { describe, expect, it } from 'vitest';
import { SecretScrubber } from '../credentials/index.js';
import { MAX_SCRUB_LINE_BYTES, ScrubStream } from './scrub-stream.js';

async function through(chunks: string[]): Promise<{ out: string[]; error?: string }> {
  const stream = new ScrubStream(new SecretScrubber(new Map([['T', 'sekrit-token-value']])), 's');
  const out: string[] = [];
  stream.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
  const ended = new Promise<string | undefined>((resolve) => {
    stream.once('end', () => resolve(undefined));
    stream.once('error', (error) => resolve(error.message));
  });
  for (const chunk of chunks) stream.write(chunk);
  stream.end();
  const error = await ended;
  return error === undefined ? { out } : { out, error };
}

describe('ScrubStream', () => {
  it('passes whole lines at once and holds only a line not yet ended', async () => {
    const { out } = await through(['data: a\n\ndata: sekrit-', 'token-value\n\n', 'tail sekrit-token-value']);
    expect(out).toEqual(['data: a\n\n', 'data: [$CRED{T}]\n\n', 'tail [$CRED{T}]']);
  });

  it('ends the stream on a line past the cap', async () => {
    const { error } = await through(['x'.repeat(MAX_SCRUB_LINE_BYTES + 1)]);
    expect(error).toBe(`MCP server "s" sent a line longer than ${MAX_SCRUB_LINE_BYTES} bytes`);
  });
});
