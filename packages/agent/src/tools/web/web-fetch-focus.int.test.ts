import { fileURLToPath } from 'node:url';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, servePages } from '../../../test/loopback-servers.js';
import { callTool } from '../../../test/tool-harness.js';
import { createFastTierCall } from '../../context/fast-tier.js';
import { LongResultSummariser } from '../../context/long-result-summariser.js';
import { PageFetcher } from './page-fetcher.js';
import { createWebFetchTool } from './web-fetch-tool.js';

const PAGES = fileURLToPath(new URL('../../../../../test/fixtures/web-pages', import.meta.url));
const workspace = '/nonexistent-workspace';
const FOCUS = 'What changed in the kernel release?';
const NOTES = '- The release adds the new scheduler.';

let pages: Loopback;
let llm: FakeLlm;
let fetcher: PageFetcher;
beforeAll(async () => {
  pages = await servePages(PAGES);
  llm = await startFakeLlm({
    script: {
      models: ['fast'],
      rules: [
        {
          match: { last_message: `Focus: ${FOCUS}` },
          reply: { text: JSON.stringify({ notes: NOTES, left_out: ['reader comments', 'site navigation'] }) },
        },
        {
          match: { last_message: 'Focus: Who wrote it?' },
          reply: { text: JSON.stringify({ notes: '- Written by the editors.', left_out: [] }) },
        },
      ],
    },
  });
  fetcher = new PageFetcher({ proxy: {}, timeoutMs: 5_000, maxBytes: 5 * 1024 * 1024, userAgent: 'test' });
});
afterAll(async () => {
  await fetcher.close();
  await llm.close();
  await pages.close();
});

function tool(withSummariser = true) {
  const client = new OpenAI({ baseURL: llm.url, apiKey: 'agent-token', maxRetries: 0 });
  return createWebFetchTool({
    fetcher,
    ...(withSummariser
      ? { summariser: new LongResultSummariser({ call: createFastTierCall(async () => client) }) }
      : {}),
  });
}

describe('web_fetch with focus', () => {
  it('summarises a page longer than max_chars against the focus on the fast tier, saying what was left out', async () => {
    llm.reset();
    const url = `${pages.url}/lwn-1/`;
    const result = await callTool(
      tool(),
      { url, max_chars: 1_000, focus: FOCUS },
      { workspace, traceId: 't-1' },
    );
    expect(result.isError).toBe(false);
    const [status = '', ...rest] = result.text.split('\n');
    expect(status).toMatch(
      new RegExp(
        `^${url}; markdown; characters 0-(\\d+) of \\1; summarised [\\d,]+ chars to ${NOTES.length} for focus '${FOCUS.replace('?', '\\?')}' \\(1 fast-tier call\\); sections not covered: reader comments, site navigation; for the exact text call web_fetch again without focus \\(offset=0\\)$`,
      ),
    );
    expect(rest.join('\n')).toContain(`\n\n${NOTES}\n</untrusted>`);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]?.body).toMatchObject({ model: 'fast' });
    expect(llm.requests[0]?.headers['x-trace-id']).toBe('t-1');
  });

  it('answers the same question about the same page from its cache, with no second call', async () => {
    llm.reset();
    const webFetch = tool();
    const input = { url: `${pages.url}/lwn-1/`, max_chars: 1_000, focus: FOCUS };
    await callTool(webFetch, input, { workspace });
    const again = await callTool(webFetch, input, { workspace });
    expect(again.text.split('\n')[0]).toMatch(/; summary from cache$/);
    expect(again.text).toContain(NOTES);
    expect(llm.requests).toHaveLength(1);
    await callTool(webFetch, { ...input, focus: 'Who wrote it?' }, { workspace });
    expect(llm.requests).toHaveLength(2);
  });

  it('returns a page that fits as it is, with no call', async () => {
    llm.reset();
    const result = await callTool(
      tool(),
      { url: `${pages.url}/lwn-1/`, max_chars: 100_000, focus: FOCUS },
      { workspace },
    );
    expect(result.text).not.toContain('summarised');
    expect(llm.requests).toHaveLength(0);
  });

  it('clips, and says so, when the agent has no summariser', async () => {
    const result = await callTool(
      tool(false),
      { url: `${pages.url}/lwn-1/`, max_chars: 1_000, focus: FOCUS },
      { workspace },
    );
    expect(result.text.split('\n')[0]).toMatch(
      /; no summariser in this agent; clipped to the first 1000 of \d+ chars; continue with offset=1000/,
    );
  });

  it('refuses an empty focus', () => {
    expect(tool().input.safeParse({ url: 'https://example.com/', focus: ' ' }).success).toBe(false);
  });
});
