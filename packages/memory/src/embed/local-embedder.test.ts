import { describe, expect, it } from 'vitest';
import { dot } from './embedder.js';
import type { WordVectors } from './glove-table.js';
import { createLocalEmbedder } from './local-embedder.js';

describe('createLocalEmbedder', () => {
  it('gives the same unit vector for the same text every time', async () => {
    const embedder = createLocalEmbedder();
    const [a, b] = await embedder.embed(['The user prefers tabs.', 'The user prefers tabs.']);
    expect(a).toEqual(b);
    expect(dot(a as Float32Array, a as Float32Array)).toBeCloseTo(1, 5);
    expect(a?.length).toBe(256);
  });

  it('names its settings in its id, so a store embedded with other settings is re-embedded', async () => {
    expect(createLocalEmbedder().id).toBe('local-hash-v1:256:0:0.05');
    // The default before word bigrams were turned off: the same words, another vector, another id.
    const withBigrams = createLocalEmbedder({ bigramWeight: 0.5 });
    expect(withBigrams.id).toBe('local-hash-v1:256:0.5:0.05');
    const [plain] = await createLocalEmbedder().embed(['painted sunsets by the lake']);
    const [bigrams] = await withBigrams.embed(['painted sunsets by the lake']);
    expect(plain).not.toEqual(bigrams);
  });

  it('puts texts sharing words (in any inflection) nearer than unrelated ones', async () => {
    const [query, related, unrelated] = await createLocalEmbedder().embed([
      'painting sunsets',
      'She painted a sunset by the lake',
      'The quarterly budget meeting moved to Friday',
    ]);
    expect(dot(query as Float32Array, related as Float32Array)).toBeGreaterThan(
      dot(query as Float32Array, unrelated as Float32Array) + 0.2,
    );
  });

  it('mixes in word vectors so related words without shared letters get closer', async () => {
    const table: WordVectors = {
      id: 'toy',
      dimensions: 2,
      words: ['cat', 'kitten', 'tax'],
      vector: (word) =>
        ({ cat: Float32Array.of(1, 0), kitten: Float32Array.of(0.9, 0.1), tax: Float32Array.of(0, 1) })[word],
      rank: (word) => ({ cat: 5000, kitten: 9000, tax: 7000 })[word],
    };
    const plain = createLocalEmbedder();
    const mixed = createLocalEmbedder({ wordVectors: table });
    expect(mixed.dimensions).toBe(258);
    expect(mixed.id).not.toBe(plain.id);
    const [cat, kitten, tax] = await mixed.embed(['cat', 'kitten', 'tax']);
    expect(dot(cat as Float32Array, kitten as Float32Array)).toBeGreaterThan(
      dot(cat as Float32Array, tax as Float32Array),
    );
  });
});
