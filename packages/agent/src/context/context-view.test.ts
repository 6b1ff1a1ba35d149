import { describe, expect, it } from 'vitest';
import type { LlmMessage } from './context-manager.js';
import { type ContextState, EMPTY_CONTEXT_STATE } from './context-state-store.js';
import { buildView, splitConversation } from './context-view.js';

const system: LlmMessage = { role: 'system', content: 'You are Quill.' };
const body: LlmMessage[] = [
  { role: 'user', content: 'one' },
  { role: 'assistant', content: 'a' },
  { role: 'user', content: 'two' },
  { role: 'assistant', content: 'b' },
];
const compacted: ContextState = {
  ...EMPTY_CONTEXT_STATE,
  covered: 2,
  userSummary: 'Ada, terse.',
  conversationSummary: 'Planning a release.',
  facts: [{ key: 'port', value: '6543', category: 'entities' }],
};

describe('buildView', () => {
  it('sends the conversation as it is while nothing is compacted', () => {
    const view = buildView(splitConversation([system, ...body]), { ...EMPTY_CONTEXT_STATE, facts: [] });
    expect(view).toEqual([system, ...body]);
  });

  it('puts the dual summary and the saved facts into the one system message, then the rest', () => {
    const view = buildView(splitConversation([system, ...body]), compacted);
    expect(view.slice(1)).toEqual(body.slice(2));
    expect(view[0]?.content).toBe(
      [
        'You are Quill.',
        '## Conversation memory',
        'The first 2 messages of this conversation were compacted; this is what they held.',
        'USER PROFILE:\nAda, terse.',
        'CONVERSATION CONTEXT:\nPlanning a release.',
        'FACTS SAVED FROM THIS CONVERSATION:\n- port: 6543',
      ].join('\n\n'),
    );
  });

  it('appends the wrap-up note after the memory, and makes a system message when there is none', () => {
    const view = buildView(splitConversation(body), compacted, 'Context is 85% full.');
    expect(view[0]?.role).toBe('system');
    expect(String(view[0]?.content)).toMatch(/^## Conversation memory[\s\S]*\n\nContext is 85% full\.$/);
  });

  it('adds the memory as a text part when the system prompt is given in parts', () => {
    const parts: LlmMessage = { role: 'system', content: [{ type: 'text', text: 'You are Quill.' }] };
    const view = buildView(splitConversation([parts, ...body]), compacted);
    expect(view[0]?.content).toHaveLength(2);
  });
});
