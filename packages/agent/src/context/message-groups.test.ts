import { describe, expect, it } from 'vitest';
import type { LlmMessage } from './context-manager.js';
import { groupMessages, keptTurnsStart, lastGroupsStart, repairToolPairs } from './message-groups.js';

function toolCall(...ids: string[]): LlmMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'read_file', arguments: '{}' } })),
  };
}
const result = (id: string): LlmMessage => ({ role: 'tool', tool_call_id: id, content: `result ${id}` });
const user = (content: string): LlmMessage => ({ role: 'user', content });
const assistant = (content: string): LlmMessage => ({ role: 'assistant', content });

describe('groupMessages', () => {
  it('keeps an assistant tool call and all its results in one group', () => {
    const messages = [user('go'), toolCall('a', 'b'), result('a'), result('b'), assistant('done')];
    expect(groupMessages(messages)).toEqual([
      { start: 0, end: 1, kind: 'user' },
      { start: 1, end: 4, kind: 'tool_round' },
      { start: 4, end: 5, kind: 'assistant' },
    ]);
  });

  it('sets a tool result without a call before it apart', () => {
    expect(groupMessages([result('x'), user('hi')])).toEqual([
      { start: 0, end: 1, kind: 'other' },
      { start: 1, end: 2, kind: 'user' },
    ]);
  });
});

describe('keptTurnsStart', () => {
  const messages = [
    user('1'),
    assistant('a'),
    user('2'),
    toolCall('t'),
    result('t'),
    assistant('b'),
    user('3'),
  ];
  const groups = groupMessages(messages);

  it('finds the user message that starts the last N turns', () => {
    expect(keptTurnsStart(groups, 1)).toBe(6);
    expect(keptTurnsStart(groups, 2)).toBe(2);
  });

  it('keeps everything when there are no more turns than N', () => {
    expect(keptTurnsStart(groups, 3)).toBe(0);
    expect(keptTurnsStart(groups, 10)).toBe(0);
  });

  it('counts the last groups for a hard prune without splitting a tool round', () => {
    expect(lastGroupsStart(groups, 3)).toBe(3);
    expect(lastGroupsStart(groups, 50)).toBe(0);
  });
});

describe('repairToolPairs', () => {
  it('drops a tool result whose call is not in the list', () => {
    const repaired = repairToolPairs([result('gone'), user('next'), assistant('ok')]);
    expect(repaired.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('answers a call whose result is missing with a stub result', () => {
    const repaired = repairToolPairs([user('go'), toolCall('a', 'b'), result('a'), assistant('done')]);
    expect(
      repaired.map((message) => (message.role === 'tool' ? message.tool_call_id : message.role)),
    ).toEqual(['user', 'assistant', 'a', 'b', 'assistant']);
    expect(repaired[3]?.content).toMatch(/no result/i);
  });

  it('leaves a well-formed conversation as it is', () => {
    const messages = [user('go'), toolCall('a'), result('a'), assistant('done')];
    expect(repairToolPairs(messages)).toEqual(messages);
  });
});
