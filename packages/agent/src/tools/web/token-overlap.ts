/** Lower-cased words and numbers of a text, in order. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * How well an extracted text matches a reference, as the F1 of their word multisets: 1 when the
 * same words occur as often in both, lower for words missing (recall) or extra (precision). Order
 * is ignored, so a different layout of the same content still scores 1.
 */
export function tokenOverlap(
  extracted: string,
  reference: string,
): { f1: number; precision: number; recall: number } {
  const got = wordTokens(extracted);
  const want = wordTokens(reference);
  if (got.length === 0 || want.length === 0) return { f1: 0, precision: 0, recall: 0 };
  const counts = new Map<string, number>();
  for (const token of want) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of got) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      common++;
      counts.set(token, left - 1);
    }
  }
  const precision = common / got.length;
  const recall = common / want.length;
  return { f1: common === 0 ? 0 : (2 * precision * recall) / (precision + recall), precision, recall };
}
