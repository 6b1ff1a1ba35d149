import { OpenLegionError } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { RefRegistry } from './ref-registry.js';

function errorOf(run: () => unknown): OpenLegionError {
  try {
    run();
  } catch (error) {
    if (error instanceof OpenLegionError) return error;
  }
  throw new Error('expected an OpenLegionError');
}

describe('RefRegistry', () => {
  it('keeps the same ref for the same element across snapshots', () => {
    const refs = new RefRegistry();
    const first = refs.refFor(1, 'e5', 'button', 'Save');
    expect(refs.refFor(1, 'e5', 'button', 'Save')).toBe(first);
    expect(refs.resolve(first)).toEqual({ tabId: 1, ariaRef: 'e5', role: 'button', name: 'Save' });
  });

  it('never reuses a number after a navigation, so an old ref is stale rather than wrong', () => {
    const refs = new RefRegistry();
    const before = refs.refFor(1, 'e2', 'link', 'Next');
    refs.clearTab(1);
    const after = refs.refFor(1, 'e2', 'link', 'Other');
    expect(after).not.toBe(before);
    const error = errorOf(() => refs.resolve(before));
    expect(error.code).toBe('BROWSER_STALE_REF');
    expect(error.message).toBe(`ref ${before} is from an older snapshot — take a new snapshot`);
  });

  it('calls a ref it never gave out unknown, and says what a ref looks like', () => {
    const refs = new RefRegistry();
    expect(errorOf(() => refs.resolve('e42')).code).toBe('BROWSER_REF_UNKNOWN');
    expect(errorOf(() => refs.resolve('#login')).message).toContain(
      'CSS selector goes in the selector field',
    );
  });

  it('makes refs of elements missing from a new snapshot stale', () => {
    const refs = new RefRegistry();
    const kept = refs.refFor(1, 'e1', 'button', 'A');
    const gone = refs.refFor(1, 'e2', 'button', 'B');
    const otherTab = refs.refFor(2, 'e1', 'button', 'C');
    refs.keepOnly(1, new Set([kept]));
    expect(refs.resolve(kept).name).toBe('A');
    expect(errorOf(() => refs.resolve(gone)).code).toBe('BROWSER_STALE_REF');
    expect(refs.resolve(otherTab).name).toBe('C');
  });

  it('reports as new only refs absent from the previous snapshot the model saw', () => {
    const refs = new RefRegistry();
    const a = refs.refFor(1, 'e1', 'button', 'A');
    expect(refs.markShown(1, new Set([a]))).toEqual(new Set());
    const b = refs.refFor(1, 'e2', 'button', 'B');
    expect(refs.newSinceShown(1, new Set([a, b]))).toEqual(new Set([b]));
    expect(refs.markShown(1, new Set([a, b]))).toEqual(new Set([b]));
    expect(refs.markShown(1, new Set([a, b]))).toEqual(new Set());
  });

  it('adds a partial snapshot to what was seen instead of replacing it', () => {
    const refs = new RefRegistry();
    const a = refs.refFor(1, 'e1', 'heading', 'Outer');
    const b = refs.refFor(1, 'f1e1', 'button', 'Inner');
    refs.markShown(1, new Set([a, b]));
    refs.markShown(1, new Set([b]), { partial: true });
    expect(refs.newSinceShown(1, new Set([a, b]))).toEqual(new Set());
  });
});
