import type { Embedder } from '@openlegion/memory';
import { defaultScopes, MemoryEngine } from '@openlegion/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryEmbedder } from './agent-memory-options.js';
import { cachedEmbedder } from './cached-embedder.js';

const opened: MemoryEngine[] = [];
afterEach(() => {
  for (const memory of opened.splice(0)) memory.close();
});

describe('the agent memory embedder', () => {
  it('makes no embedding call when the same text is saved a second time', async () => {
    let calls = 0;
    const inner: Embedder = {
      id: 'openai:test',
      kind: 'remote',
      dimensions: undefined,
      embed: async (texts) => {
        calls++;
        return texts.map((text) => Float32Array.from([1, text.length % 7, 0.5]));
      },
    };
    const memory = MemoryEngine.open({
      file: ':memory:',
      embedder: cachedEmbedder(inner),
      defaultScopes: defaultScopes('a'),
      onEmbedderError: 'bm25',
    });
    opened.push(memory);
    await memory.save([{ content: 'The user prefers tabs over spaces.' }]);
    const afterFirst = calls;
    expect(afterFirst).toBeGreaterThan(0);
    await memory.save([{ content: 'The user prefers tabs over spaces.' }]);
    expect(calls).toBe(afterFirst);
  });

  it('is the local embedder for local and a cached host embedder for a provider model', () => {
    const host = { meshUrl: 'http://127.0.0.1:1', token: 't' };
    expect(memoryEmbedder('local', host)).toMatchObject({ kind: 'local' });
    expect(memoryEmbedder('openai/text-embedding-3-small', host)).toMatchObject({
      kind: 'remote',
      id: 'openai:openai/text-embedding-3-small',
    });
  });
});
