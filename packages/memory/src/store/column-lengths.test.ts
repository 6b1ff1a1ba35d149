import { describe, expect, it } from 'vitest';
import { readVarints } from './column-lengths.js';

describe('readVarints', () => {
  it('reads one-byte and multi-byte SQLite varints in order', () => {
    expect(readVarints(Uint8Array.from([0x05, 0x81, 0x00, 0x7f]), 3)).toEqual([5, 128, 127]);
  });

  it('stops after the number asked for', () => {
    expect(readVarints(Uint8Array.from([1, 2, 3, 4]), 2)).toEqual([1, 2]);
  });

  it('takes all 8 bits of a ninth byte', () => {
    const bytes = Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xff]);
    expect(readVarints(bytes, 1)).toEqual([255]);
  });

  it('leaves out a varint cut short by the end of the bytes', () => {
    expect(readVarints(Uint8Array.from([0x03, 0x81]), 2)).toEqual([3]);
  });
});
