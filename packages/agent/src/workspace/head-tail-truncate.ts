/** Share of a cap kept from the start of an oversized file. */
export const HEAD_SHARE = 0.7;
/** Share of a cap kept from its end; the rest of the cap holds the marker. */
export const TAIL_SHARE = 0.2;

/**
 * `text` cut to at most `cap` characters: its first 70% and last 20% of the cap, with a marker
 * between them that says how much is missing and which tool reads it.
 *
 * @example
 * truncateHeadTail('MEMORY.md', memoryText, 16_000) // head … [marker] … tail
 */
export function truncateHeadTail(
  file: string,
  text: string,
  cap: number,
  /** Where the whole text is found; the workspace file by default. */
  whole = `Read the whole file with read_file("${file}")`,
): string {
  if (text.length <= cap) return text;
  const head = Math.floor(cap * HEAD_SHARE);
  const tail = Math.floor(cap * TAIL_SHARE);
  const marker =
    `\n\n[… ${file} is ${text.length} characters; ${text.length - head - tail} in the middle are ` +
    `left out here. ${whole} …]\n\n`;
  // The marker lives in the last 10% of the cap; on a tiny cap the head gives way to it.
  const headKept = Math.max(0, Math.min(head, cap - tail - marker.length));
  return text.slice(0, headKept) + marker + text.slice(text.length - tail);
}
