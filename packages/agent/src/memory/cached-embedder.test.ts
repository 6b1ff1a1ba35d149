import type { Embedder } from '@openlegion/memory';
import { describe, expect, it } from 'vitest';
import { cachedEmbedder } from './cached-embedder.js';

/** Counts what it is asked: one vector [length, call] per text. */
function countingEmbedder() {
  const asked: string[][] = [];
  const embedder: Embedder = {
    id: 'openai:openai/text-embedding-3-small',
    kind: 'remote',
    dimensions: undefined,
    embed: async (texts) => {
      asked.push([...texts]);
      return texts.map((text) => Float32Array.from([text.length, asked.length]));
    },
  };
  return { embedder, asked };
}

describe('cachedEmbedder', () => {
  it('asks only for texts it has not seen, once each, in one batch, and answers in order', async () => {
    const { embedder, asked } = countingEmbedder();
    const cached = cachedEmbedder(embedder);
    expect(cached.id).toBe(embedder.id);
    await cached.embed(['alpha', 'beta']);
    const vectors = await cached.embed(['beta', 'gamma', 'gamma', 'alpha']);
    expect(asked).toEqual([['alpha', 'beta'], ['gamma']]);
    expect(vectors.map((vector) => [...vector])).toEqual([
      [4, 1],
      [5, 2],
      [5, 2],
      [5, 1],
    ]);
  });

  it('forgets the least recently used text beyond its size, and answers a batch larger than itself', async () => {
    const { embedder, asked } = countingEmbedder();
    const cached = cachedEmbedder(embedder, 2);
    expect(await cached.embed(['a', 'b', 'c'])).toHaveLength(3);
    await cached.embed(['b']); // c and b are cached; a was evicted
    expect(asked).toHaveLength(1);
    await cached.embed(['a']);
    expect(asked).toEqual([['a', 'b', 'c'], ['a']]);
  });
});
