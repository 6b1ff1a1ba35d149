import { describe, expect, it } from 'vitest';
import { MAX_SSE_EVENT_BYTES, SseEndpointRewriter } from './sse-endpoint-rewriter.js';

/** Feed `chunks` through a rewriter; what came out, the endpoint's fate and any violation. */
async function run(chunks: (string | Buffer)[], rewrite = (data: string) => `/host?for=${data}`) {
  const rewriter = new SseEndpointRewriter('s', rewrite);
  let out = '';
  let violation: Error | undefined;
  rewriter.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  rewriter.on('violation', (error: Error) => {
    violation = error;
  });
  const failed = new Promise<Error | undefined>((resolve) => {
    rewriter.once('error', resolve);
    rewriter.once('end', () => resolve(undefined));
  });
  for (const chunk of chunks) rewriter.write(chunk);
  rewriter.end();
  const error = await failed;
  const endpoint = await rewriter.endpoint.catch((reason: Error) => `refused: ${reason.message}`);
  return { out, error: error?.message, endpoint, violation: violation?.message };
}

describe('SseEndpointRewriter', () => {
  it('rewrites the endpoint event and passes later events unchanged', async () => {
    const result = await run([
      'event: endpoint\ndata: /message?sessionId=1\n\nevent: message\ndata: {"a":1}\n\n',
    ]);
    expect(result.endpoint).toBe('/host?for=/message?sessionId=1');
    expect(result.out).toBe(
      'event: endpoint\ndata: /host?for=/message?sessionId=1\n\nevent: message\ndata: {"a":1}\n\n',
    );
  });

  it('joins an event split across chunks, a multi-byte character included, and CRLF lines', async () => {
    const euro = Buffer.from('€');
    const result = await run([
      'event: endpoint\r\ndata: /m',
      '\r\n\r\nevent: message\r\ndata: ',
      euro.subarray(0, 1),
      euro.subarray(1),
      '\r\n\r\n',
    ]);
    expect(result.endpoint).toBe('/host?for=/m');
    expect(result.out).toBe('event: endpoint\ndata: /host?for=/m\n\nevent: message\r\ndata: €\r\n\r\n');
  });

  it('lets comments come before the endpoint', async () => {
    const result = await run([': hello\n\nevent: endpoint\ndata: /m\n\n']);
    expect(result.out).toBe(': hello\n\nevent: endpoint\ndata: /host?for=/m\n\n');
  });

  it('fails when the first event is not the endpoint', async () => {
    const result = await run(['event: message\ndata: {}\n\n']);
    expect(result.error).toBe(
      'MCP server "s" sent another event before its endpoint event (is mcp.servers.s.url its SSE URL?)',
    );
    expect(result.out).toBe('');
  });

  it('fails with the refusal of the rewrite', async () => {
    const result = await run(['event: endpoint\ndata: http://elsewhere/\n\n'], () => {
      throw new Error('not on the origin');
    });
    expect(result.error).toBe('not on the origin');
    expect(result.endpoint).toBe('refused: not on the origin');
  });

  it('ends the stream at a second endpoint, keeping what came before', async () => {
    const result = await run([
      'event: endpoint\ndata: /a\n\ndata: 1\n\nevent: endpoint\ndata: /b\n\ndata: 2\n\n',
    ]);
    expect(result.out).toBe('event: endpoint\ndata: /host?for=/a\n\ndata: 1\n\n');
    expect(result.violation).toBe(
      'MCP server "s" sent a second endpoint event; a server may name its endpoint once',
    );
  });

  it('fails on a stream that ends before any endpoint', async () => {
    const result = await run([': only a comment\n\n']);
    expect(result.endpoint).toBe('refused: MCP server "s" ended its event stream before sending an endpoint');
  });

  it('refuses an event longer than the cap', async () => {
    const result = await run(['data: ', 'x'.repeat(MAX_SSE_EVENT_BYTES + 1)]);
    expect(result.error).toBe(`MCP server "s" sent an event longer than ${MAX_SSE_EVENT_BYTES} bytes`);
  });
});
