import { describe, expect, it } from 'vitest';
import type { LlmMessage } from './context-manager.js';
import { appendDigest, isMostlyToolOutput, truncationLine } from './truncation-digest.js';

function toolRound(id: string, output: string): LlmMessage[] {
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'run_command', arguments: '{"cmd":"make"}' } }],
    },
    { role: 'tool', tool_call_id: id, content: output },
  ];
}
const log = 'error: build step failed at line 42 of the makefile\n'.repeat(80);

describe('isMostlyToolOutput', () => {
  it('is true for tool work with little said around it', () => {
    expect(isMostlyToolOutput([{ role: 'user', content: 'build it' }, ...toolRound('a', log)])).toBe(true);
  });

  it('is false when the user and the assistant said a lot, however big the tool output', () => {
    const talk = 'we should move the release to friday because the payment team needs time '.repeat(60);
    const messages: LlmMessage[] = [{ role: 'user', content: talk }, ...toolRound('a', log.repeat(20))];
    expect(isMostlyToolOutput(messages)).toBe(false);
  });

  it('is false for plain conversation', () => {
    expect(
      isMostlyToolOutput([
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
      ]),
    ).toBe(false);
  });
});

describe('truncationLine', () => {
  it('names the range, the last requests and the tools used', () => {
    const messages: LlmMessage[] = [
      { role: 'user', content: 'build it' },
      ...toolRound('a', 'ok'),
      ...toolRound('b', 'ok'),
      { role: 'user', content: 'and test it' },
    ];
    expect(truncationLine(messages, 10)).toBe(
      '- messages 11–16; the user asked "build it"; "and test it"; tools used: run_command ×2',
    );
  });
});

describe('appendDigest', () => {
  it('drops the oldest lines past the cap', () => {
    let digest = '';
    for (let index = 0; index < 100; index++)
      digest = appendDigest(digest, `- line ${index} ${'x'.repeat(50)}`);
    expect(digest.length).toBeLessThanOrEqual(2_000);
    expect(digest.split('\n').at(-1)).toMatch(/^- line 99 /);
    expect(digest).not.toContain('- line 0 ');
  });
});
