import { describe, expect, it } from 'vitest';
import { LogTail } from './log-tail.js';

describe('LogTail', () => {
  it('keeps only the last lines up to its capacity', () => {
    const tail = new LogTail(2);
    tail.push('one\ntwo\nthree\n');
    expect(tail.last(10)).toEqual(['two', 'three']);
  });

  it('joins a line split across chunks', () => {
    const tail = new LogTail(10);
    tail.push('hel');
    tail.push('lo\nwor');
    expect(tail.last(10)).toEqual(['hello', 'wor']);
  });
});
