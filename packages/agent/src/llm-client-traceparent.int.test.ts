import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLlmClient } from './llm-client.js';
import { TraceParents } from './trace-parents.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('the LLM client', () => {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      }),
    );
  });
  let meshUrl: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    meshUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("passes on the turn's traceparent with a call made under its trace id, and none without", async () => {
    const traceParents = new TraceParents();
    traceParents.remember('trace-1', PARENT);
    const llm = await loadLlmClient({ meshUrl, token: 't', traceParents });
    const call = (headers?: Record<string, string>) =>
      llm.chat.completions.create(
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        headers ? { headers } : {},
      );
    await call({ 'x-trace-id': 'trace-1' });
    await call({ 'x-trace-id': 'trace-unknown' });
    await call();
    expect(seen.map((headers) => headers.traceparent)).toEqual([PARENT, undefined, undefined]);
    expect(seen[0]?.['x-trace-id']).toBe('trace-1');
  });
});
