import { describe, expect, it } from 'vitest';
import { sampleItem } from '../model/memory-item.fixture.js';
import type { Candidate } from './candidate.js';
import { postProcess, relevance } from './post-process.js';
import { DEFAULT_RETRIEVAL_CONFIG } from './retrieval-config.js';

const NOW = 1_000 * 86_400_000;

function candidate(id: number, score: number, prior?: number): Candidate {
  const item = sampleItem({
    id,
    category: 'events',
    abstract: `item ${id}`,
    overview: '',
    content: `item ${id}`,
    tier: 'core',
    importance: 1,
    createdAt: NOW,
    updatedAt: NOW,
  });
  return { item, score, vectorScore: null, bm25Score: score, ...(prior === undefined ? {} : { prior }) };
}

/** Boosts and weights that leave a score as it is, so the priors' effect shows alone. */
const NEUTRAL = {
  ...DEFAULT_RETRIEVAL_CONFIG,
  recencyWeight: 0,
  decay: false,
  mmrLambda: 1,
  minScore: 0,
  hardMinScore: 0,
};

describe('postProcess with priors', () => {
  it('orders by score plus prior', async () => {
    const out = await postProcess([candidate(1, 0.6, -0.1), candidate(2, 0.55, 0.1)], {
      config: NEUTRAL,
      now: NOW,
      limit: 10,
    });
    expect(out.map((entry) => entry.item.id)).toEqual([2, 1]);
    expect(out[0]?.score).toBeCloseTo(0.65, 12);
    expect(relevance(out[0] as Candidate)).toBeCloseTo(0.55, 12);
  });

  it('applies the min score and the hard minimum to relevance, not to what a prior adds', async () => {
    const config = { ...NEUTRAL, minScore: 0.3, hardMinScore: 0.35 };
    const out = await postProcess(
      [candidate(1, 0.25, 0.5), candidate(2, 0.34, 0.2), candidate(3, 0.4, -0.2)],
      { config, now: NOW, limit: 10 },
    );
    expect(out.map((entry) => entry.item.id)).toEqual([3]);
  });

  it("scales a prior by the item's weights like the rest of its score", async () => {
    const config = { ...NEUTRAL, importanceBase: 0.5 };
    const low = candidate(1, 0.8, 0.2);
    low.item.importance = 0;
    const [out] = await postProcess([low], { config, now: NOW, limit: 10 });
    expect(out?.score).toBeCloseTo(0.5, 12);
    expect(out?.prior).toBeCloseTo(0.1, 12);
  });
});
