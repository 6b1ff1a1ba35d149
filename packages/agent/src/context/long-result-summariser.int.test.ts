import { type FakeLlm, type FakeLlmScriptInput, startFakeLlm } from '@openlegion/testkit';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createFastTierCall } from './fast-tier.js';
import { LongResultSummariser, splitIntoChunks } from './long-result-summariser.js';

/** Three sections of 1,000 chars each, told apart by their first words. */
const SECTION = (name: string, fill: string) =>
  `${name}\n${fill.repeat(Math.ceil(1_000 / fill.length)).slice(0, 997 - name.length)}\n\n`;
const DOCUMENT = [
  SECTION('Install', 'Run pnpm add sqlite-vec; it ships a Linux binary. '),
  SECTION('History', 'The project began as a side project in 2023. '),
  SECTION('Benchmarks', 'A k=10 query over 10k vectors takes 2.7 ms. '),
].join('');
const FOCUS = 'how fast is a KNN query?';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function summariser(script: FakeLlmScriptInput, maxCalls?: number) {
  llm = await startFakeLlm({ script: { models: ['fast'], ...script } });
  const client = new OpenAI({ baseURL: llm.url, apiKey: 'agent-token', maxRetries: 0 });
  return new LongResultSummariser({
    call: createFastTierCall(async () => client),
    chunkChars: 1_100,
    ...(maxCalls ? { maxCalls } : {}),
  });
}

const request = (maxChars: number) => ({
  text: DOCUMENT,
  focus: FOCUS,
  maxChars,
  source: 'web page https://docs.example.com/vec',
  signal: new AbortController().signal,
  traceId: 'trace-summary-1',
});

const mapReply = (notes: string, leftOut: string[]) => ({
  text: JSON.stringify({ notes, left_out: leftOut }),
});

describe('LongResultSummariser on the fast tier', () => {
  it('cuts a text at its paragraphs', () => {
    expect(splitIntoChunks(DOCUMENT, 1_100).map((chunk) => chunk.split('\n')[0])).toEqual([
      'Install',
      'History',
      'Benchmarks',
    ]);
    expect(splitIntoChunks('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });

  it('summarises each chunk against the focus and says which sections it left out', async () => {
    const summarise = await summariser({
      rules: [
        { match: { last_message: 'part 1 of 3' }, reply: mapReply('', ['installation steps']) },
        { match: { last_message: 'part 2 of 3' }, reply: mapReply('', ['project history']) },
        { match: { last_message: 'part 3 of 3' }, reply: mapReply('- k=10 over 10k vectors: 2.7 ms', []) },
      ],
    });
    const result = await summarise.summarise(request(500));
    expect(result).toEqual({
      text: '- k=10 over 10k vectors: 2.7 ms',
      summarised: true,
      calls: 3,
      note: "summarised 3,000 chars to 31 for focus 'how fast is a KNN query?' (3 fast-tier calls); sections not covered: installation steps, project history",
    });
    const requests = llm?.requests ?? [];
    expect(requests).toHaveLength(3);
    for (const sent of requests) {
      expect(sent.body).toMatchObject({ model: 'fast' });
      expect(sent.headers['x-trace-id']).toBe('trace-summary-1');
      expect(JSON.stringify(sent.body)).toContain(`Focus: ${FOCUS}`);
    }
  });

  it('merges the notes in one more call when together they are still too long', async () => {
    const long = 'x'.repeat(300);
    const summarise = await summariser({
      rules: [
        {
          match: { last_message: 'Notes, part by part' },
          reply: { text: 'KNN: 2.7 ms for k=10 over 10k vectors.' },
        },
        { match: { last_message: 'of 3' }, reply: mapReply(long, []) },
      ],
    });
    const result = await summarise.summarise(request(500));
    expect(result.text).toBe('KNN: 2.7 ms for k=10 over 10k vectors.');
    expect(result.calls).toBe(4);
    expect(result.note).toBe(
      "summarised 3,000 chars to 38 for focus 'how fast is a KNN query?' (4 fast-tier calls); sections not covered: none named",
    );
  });

  it('reads no more than its call budget allows, and says where it stopped', async () => {
    const summarise = await summariser(
      { rules: [{ match: { last_message: 'of 2' }, reply: mapReply('- a note', []) }] },
      3,
    );
    const result = await summarise.summarise(request(500));
    expect(llm?.requests).toHaveLength(2);
    expect(result.note).toContain("the last 1,000 chars were not read (over the summariser's 3-call budget)");
  });

  it('clips the text with the reason when the fast tier fails', async () => {
    const summarise = await summariser({
      rules: [
        { match: { last_message: 'part 2 of 3' }, fail: { status: 500, message: 'upstream down' } },
        { match: { last_message: 'of 3' }, reply: mapReply('- a note', []) },
      ],
    });
    const result = await summarise.summarise(request(500));
    expect(result.summarised).toBe(false);
    expect(result.text).toBe(DOCUMENT.slice(0, 500));
    expect(result.note).toMatch(
      /^could not summarise for focus 'how fast is a KNN query\?' \(500 .*upstream down.*\); clipped to the first 500 of 3,000 chars$/,
    );
  });

  it('passes a text that fits through without a call', async () => {
    const summarise = await summariser({ rules: [] });
    const result = await summarise.summarise(request(10_000));
    expect(result).toMatchObject({ text: DOCUMENT, summarised: false, calls: 0 });
    expect(llm?.requests).toHaveLength(0);
  });
});
