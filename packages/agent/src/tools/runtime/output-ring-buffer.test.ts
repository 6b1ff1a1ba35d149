import { describe, expect, it } from 'vitest';
import { OutputRingBuffer } from './output-ring-buffer.js';

describe('OutputRingBuffer', () => {
  it('keeps everything while under capacity', () => {
    const buffer = new OutputRingBuffer(16);
    buffer.write(Buffer.from('hello '));
    buffer.write(Buffer.from('world'));
    expect(buffer.read()).toEqual({ text: 'hello world', dropped: 0, next: 11 });
  });

  it('keeps only the last capacity bytes and counts what was dropped', () => {
    const buffer = new OutputRingBuffer(8);
    buffer.write(Buffer.from('0123456789'));
    buffer.write(Buffer.from('abc'));
    expect(buffer.read()).toEqual({ text: '56789abc', dropped: 5, next: 13 });
    expect(buffer.totalBytes).toBe(13);
  });

  it('returns only what came after a cursor', () => {
    const buffer = new OutputRingBuffer(8);
    buffer.write(Buffer.from('abcd'));
    const first = buffer.read();
    buffer.write(Buffer.from('ef'));
    expect(buffer.read(first.next)).toEqual({ text: 'ef', dropped: 0, next: 6 });
    expect(buffer.read(6)).toEqual({ text: '', dropped: 0, next: 6 });
  });

  it('says how much after a stale cursor was overwritten', () => {
    const buffer = new OutputRingBuffer(4);
    buffer.write(Buffer.from('ab'));
    buffer.write(Buffer.from('cdefgh'));
    expect(buffer.read(2)).toEqual({ text: 'efgh', dropped: 2, next: 8 });
  });
});
