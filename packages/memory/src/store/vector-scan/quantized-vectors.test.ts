import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import createWabt from 'wabt';
import { dot, normalizeInPlace } from '../../embed/embedder.js';
import { INT8_DOT_WASM } from './int8-dot-wasm.js';
import { QuantizedVectors } from './quantized-vectors.js';

/** Deterministic pseudo-random unit vectors. */
function vectors(count: number, dimensions: number, seed = 7): Float32Array[] {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  return Array.from({ length: count }, () =>
    normalizeInPlace(Float32Array.from({ length: dimensions }, next)),
  );
}

function exactTop(query: Float32Array, all: Float32Array[], k: number, keep = (_index: number) => true) {
  return all
    .map((vector, index) => ({ id: index + 1, similarity: dot(query, vector) }))
    .filter((hit) => keep(hit.id - 1))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k);
}

describe('QuantizedVectors', () => {
  it('finds nearly the same nearest neighbours as an exact scan, with similarities within 0.01', () => {
    const all = vectors(3_000, 100);
    const index = new QuantizedVectors(100);
    all.forEach((vector, i) => {
      index.set(i + 1, vector, 'agent:a', 'events');
    });
    let overlap = 0;
    for (const query of vectors(20, 100, 99)) {
      const found = index.nearest(query, 20, ['agent:a']);
      const exact = exactTop(query, all, 20);
      const exactIds = new Set(exact.map((hit) => hit.id));
      overlap += found.filter((hit) => exactIds.has(hit.id)).length;
      for (const hit of found) {
        expect(Math.abs(hit.similarity - dot(query, all[hit.id - 1] as Float32Array))).toBeLessThan(0.01);
      }
      expect(found.map((hit) => hit.similarity)).toEqual(
        [...found.map((hit) => hit.similarity)].sort((a, b) => b - a),
      );
    }
    expect(overlap / (20 * 20)).toBeGreaterThanOrEqual(0.95);
  });

  it('returns only vectors of the asked scopes and categories', () => {
    const all = vectors(400, 32);
    const index = new QuantizedVectors(32);
    all.forEach((vector, i) => {
      index.set(i + 1, vector, i % 2 === 0 ? 'agent:a' : 'global', i % 3 === 0 ? 'events' : 'profile');
    });
    const [query] = vectors(1, 32, 5);
    const hits = index.nearest(query as Float32Array, 10, ['global'], ['events']);
    expect(hits).toHaveLength(10);
    for (const hit of hits) expect((hit.id - 1) % 2 === 1 && (hit.id - 1) % 3 === 0).toBe(true);
    const exact = exactTop(query as Float32Array, all, 10, (i) => i % 2 === 1 && i % 3 === 0);
    expect(hits[0]?.id).toBe(exact[0]?.id);
    expect(index.nearest(query as Float32Array, 10, ['project:unknown'])).toEqual([]);
    expect(index.nearest(query as Float32Array, 10, ['global'], ['unknown'])).toEqual([]);
  });

  it('forgets deleted vectors, replaces updated ones and reuses freed slots', () => {
    const [a, b, c] = vectors(3, 48) as [Float32Array, Float32Array, Float32Array];
    const index = new QuantizedVectors(48);
    index.set(1, a, 'global', 'events');
    index.set(2, b, 'global', 'events');
    expect(index.nearest(a, 1, ['global'])[0]?.id).toBe(1);
    index.delete(1);
    expect(index.nearest(a, 5, ['global']).map((hit) => hit.id)).toEqual([2]);
    index.set(2, c, 'global', 'events');
    expect(index.nearest(c, 1, ['global'])[0]?.similarity).toBeCloseTo(1, 2);
    index.set(3, a, 'global', 'events');
    expect(index.size).toBe(2);
    expect(index.nearest(a, 1, ['global'])[0]?.id).toBe(3);
  });

  it('keeps every vector when it grows past its first capacity, at a dimension not a multiple of 16', () => {
    const all = vectors(5_000, 37);
    const index = new QuantizedVectors(37);
    all.forEach((vector, i) => {
      index.set(i + 1, vector, 'global', 'events');
    });
    expect(index.size).toBe(5_000);
    for (const id of [1, 1_024, 1_025, 2_048, 5_000]) {
      expect(index.nearest(all[id - 1] as Float32Array, 1, ['global'])[0]?.id).toBe(id);
    }
  });

  it('refuses a vector or a query of another dimension, naming both', () => {
    const index = new QuantizedVectors(8);
    expect(() => index.set(1, new Float32Array(9), 'global', 'events')).toThrow(/9 dimensions.*of 8/);
    expect(() => index.nearest(new Float32Array(7), 1, ['global'])).toThrow(/7 dimensions.*of 8/);
  });

  it('ships the module its WebAssembly text compiles to', async () => {
    const wabt = await createWabt();
    const wat = readFileSync(fileURLToPath(new URL('./int8-dot.wat', import.meta.url)), 'utf8');
    const module = wabt.parseWat('int8-dot.wat', wat, { simd: true });
    const { buffer } = module.toBinary({});
    module.destroy();
    expect(Buffer.from(buffer).toString('base64')).toBe(INT8_DOT_WASM);
  });
});
