import { describe, expect, it } from 'vitest';
import { splitReply } from './split-reply.js';

describe('splitReply', () => {
  it('keeps a short reply whole', () => {
    expect(splitReply('one\n\ntwo', 100)).toEqual(['one\n\ntwo']);
  });

  it('cuts at the last paragraph break that fits', () => {
    const text = `${'a'.repeat(40)}\n\n${'b'.repeat(40)}\n\n${'c'.repeat(40)}`;
    expect(splitReply(text, 100)).toEqual([`${'a'.repeat(40)}\n\n${'b'.repeat(40)}`, 'c'.repeat(40)]);
  });

  it('falls back to line breaks, then to a hard cut', () => {
    const lines = `${'a'.repeat(60)}\n${'b'.repeat(60)}`;
    expect(splitReply(lines, 100)).toEqual(['a'.repeat(60), 'b'.repeat(60)]);
    const word = 'x'.repeat(250);
    const parts = splitReply(word, 100);
    expect(parts.join('')).toBe(word);
    expect(parts.every((part) => part.length <= 100)).toBe(true);
  });

  it('never cuts an emoji in half', () => {
    const text = `${'x'.repeat(94)}😀😀😀😀`;
    const parts = splitReply(text, 100);
    expect(parts.join('')).toBe(text);
    for (const part of parts) expect(part).not.toMatch(/[\uD800-\uDBFF]$/);
  });

  it('closes a code block cut in two and opens it again with its language', () => {
    const code = Array.from({ length: 30 }, (_, index) => `line ${index}`).join('\n');
    const parts = splitReply(`intro\n\n\`\`\`ts\n${code}\n\`\`\``, 120);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts.slice(1)) expect(part.startsWith('```ts\n')).toBe(true);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(120 + '```ts\n'.length);
      expect((part.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
  });
});
