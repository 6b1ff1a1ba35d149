import { describe, expect, it } from 'vitest';
import { findCycles, upstreamSets } from './workflow-graph.js';

const node = (id: string, ...depends_on: string[]) => ({ id, depends_on });

describe('the step graph', () => {
  it('names a cycle in the direction work flows, once, and every separate cycle', () => {
    // b runs after a, c after b, a after c; e and f wait for each other apart from that.
    const nodes = [
      node('a', 'c'),
      node('b', 'a'),
      node('c', 'b'),
      node('e', 'f'),
      node('f', 'e'),
      node('g', 'a'),
    ];
    expect(findCycles(nodes)).toEqual([
      ['a', 'b', 'c', 'a'],
      ['e', 'f', 'e'],
    ]);
  });

  it('finds no cycle in a diamond and ignores unknown ids', () => {
    expect(findCycles([node('a'), node('b', 'a'), node('c', 'a', 'ghost'), node('d', 'b', 'c')])).toEqual([]);
  });

  it('gives every step all the steps it waits for, through others too', () => {
    const upstream = upstreamSets([
      node('a'),
      node('b', 'a'),
      node('c', 'a'),
      node('d', 'b', 'c'),
      node('e'),
    ]);
    expect([...(upstream.get('d') ?? [])].sort()).toEqual(['a', 'b', 'c']);
    expect([...(upstream.get('b') ?? [])]).toEqual(['a']);
    expect(upstream.get('e')?.size).toBe(0);
  });
});
