/** FNV-1a, 32-bit: fast, and stable across runs, platforms and Node versions. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Add `weight` for `feature` into a signed hashed slot of `vector`. The sign halves collisions' bias:
 * two features sharing a slot cancel as often as they add up.
 */
export function addHashedFeature(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  const slot = hash % vector.length;
  vector[slot] = (vector[slot] ?? 0) + (hash & 0x80000000 ? -weight : weight);
}
