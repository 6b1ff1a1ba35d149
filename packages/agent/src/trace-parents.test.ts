import { describe, expect, it } from 'vitest';
import { TraceParents } from './trace-parents.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('TraceParents', () => {
  it("gives back the traceparent the host sent with a turn's trace id", () => {
    const parents = new TraceParents();
    parents.remember('trace-1', PARENT);
    expect(parents.of('trace-1')).toBe(PARENT);
    expect(parents.of('trace-2')).toBeUndefined();
    expect(parents.of(undefined)).toBeUndefined();
  });

  it('keeps nothing that is not a valid W3C traceparent, or without a trace id', () => {
    const parents = new TraceParents();
    parents.remember('a', 'not-a-traceparent');
    parents.remember('b', '00-00000000000000000000000000000000-b7ad6b7169203331-01');
    parents.remember('c', ['list']);
    parents.remember(undefined, PARENT);
    expect([parents.of('a'), parents.of('b'), parents.of('c')]).toEqual([undefined, undefined, undefined]);
  });

  it('forgets the oldest trace past 64', () => {
    const parents = new TraceParents();
    for (let i = 0; i < 65; i++) parents.remember(`t-${i}`, PARENT);
    expect(parents.of('t-0')).toBeUndefined();
    expect(parents.of('t-1')).toBe(PARENT);
    expect(parents.of('t-64')).toBe(PARENT);
  });
});
