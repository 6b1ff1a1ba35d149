import type { ChatEvent } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ActiveTurns } from './active-turns.js';
import { canonicalJson, LoopDetector } from './loop-detector.js';
import { SilentReplyGate } from './silent-reply.js';
import { parseArgumentsJson, validateArguments } from './tool-arguments.js';

describe('LoopDetector', () => {
  it('runs, warns at 2, blocks at 4 and ends at 9 identical calls', () => {
    const detector = new LoopDetector();
    const verdicts = Array.from({ length: 9 }, () => detector.check('f', { a: 1 }).verdict);
    expect(verdicts).toEqual(['run', 'warn', 'warn', 'block', 'block', 'block', 'block', 'block', 'end']);
  });

  it('counts calls with the same arguments in another key order as the same', () => {
    const detector = new LoopDetector();
    detector.check('f', { a: 1, b: { c: 2, d: 3 } });
    expect(detector.check('f', { b: { d: 3, c: 2 }, a: 1 }).count).toBe(2);
  });

  it('counts different arguments and different tools apart', () => {
    const detector = new LoopDetector();
    detector.check('f', { a: 1 });
    expect([detector.check('f', { a: 2 }).count, detector.check('g', { a: 1 }).count]).toEqual([1, 1]);
  });

  it('writes canonical JSON with sorted keys', () => {
    expect(canonicalJson({ b: [{ z: 1, y: 2 }], a: null })).toBe('{"a":null,"b":[{"y":2,"z":1}]}');
  });
});

describe('SilentReplyGate', () => {
  const run = (pieces: string[]) => {
    const events: ChatEvent[] = [];
    const gate = new SilentReplyGate((event) => events.push(event));
    for (const text of pieces) gate.emit({ type: 'text_delta', text });
    gate.finish();
    return events.map((event) => (event.type === 'text_delta' ? event.text : event.type)).join('|');
  };

  it('swallows the silent token streamed in pieces', () => {
    expect(run(['__SIL', 'ENT__', ' '])).toBe('');
  });

  it('lets ordinary text through at once and releases held text when it diverges', () => {
    expect(run(['Hello', ' there'])).toBe('Hello| there');
    expect(run(['__SI', 'LLY'])).toBe('__SI|LLY');
  });
});

describe('tool arguments', () => {
  it('reads an empty argument string as no arguments', () => {
    expect(parseArgumentsJson('')).toEqual({ ok: true, value: {} });
  });

  it('names every invalid field', () => {
    const tool = {
      name: 'write_file',
      group: 'files' as const,
      description: '',
      input: z.object({ path: z.string(), lines: z.number() }),
      run: async () => ({ content: [] }),
    };
    const result = validateArguments(tool, { path: 3, lines: 'x' });
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/invalid arguments for write_file: field "path": .*; field "lines": /),
    });
  });
});

describe('ActiveTurns', () => {
  it('queues a steer for the running turn and refuses one when none runs', () => {
    const turns = new ActiveTurns();
    expect(turns.steer('c', 'early')).toBe(false);
    const turn = turns.begin('c');
    expect([
      turns.steer('c', 'one'),
      turns.steer('c', 'two'),
      turn?.drainSteered(),
      turn?.drainSteered(),
    ]).toEqual([true, true, ['one', 'two'], []]);
  });

  it('allows one turn per conversation until it ends', () => {
    const turns = new ActiveTurns();
    const first = turns.begin('c');
    const second = turns.begin('c');
    first?.end();
    expect([second, turns.begin('c') !== undefined]).toEqual([undefined, true]);
  });
});
