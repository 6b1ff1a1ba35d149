import { describe, expect, it } from 'vitest';
import { cleanTranscript, hygieneFamily } from './transcript-hygiene.js';

const call = (id: string, name = 'read_file') => ({
  id,
  type: 'function',
  function: { name, arguments: '{}' },
});

describe('transcript hygiene', () => {
  it('gives an orphan tool call a synthetic error result and drops an orphan tool result', () => {
    const { messages, repairs } = cleanTranscript(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
        { role: 'tool', tool_call_id: 'a', content: 'ok' },
        { role: 'tool', tool_call_id: 'zzz', content: 'stray' },
        { role: 'user', content: 'and?' },
      ],
      'openai',
    );
    expect(messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'a', content: 'ok' },
      {
        role: 'tool',
        tool_call_id: 'b',
        content: 'error: this tool call has no result (the turn was interrupted)',
      },
      { role: 'user', content: 'and?' },
    ]);
    expect(repairs).toEqual([
      'added a result for tool call b, which had none',
      'dropped a tool result for unknown call zzz',
    ]);
  });

  it('drops tool calls with empty names, and their results', () => {
    const { messages } = cleanTranscript(
      [
        { role: 'assistant', content: 'x', tool_calls: [call('a', '')] },
        { role: 'tool', tool_call_id: 'a', content: 'ok' },
      ],
      'openai',
    );
    expect(messages).toEqual([{ role: 'assistant', content: 'x' }]);
  });

  it('merges consecutive same-role messages for providers that need alternation, only for them', () => {
    const input = [
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'a' },
      { role: 'assistant', content: 'b' },
    ];
    expect(cleanTranscript(input, 'anthropic').messages).toEqual([
      { role: 'user', content: 'one\n\ntwo' },
      { role: 'assistant', content: 'a\n\nb' },
    ]);
    expect(cleanTranscript(input, 'openai').messages).toEqual(input);
  });

  it('makes tool-call ids alphanumeric for gemini and 9 characters for mistral, a call and its result alike', () => {
    const input = [
      { role: 'assistant', content: null, tool_calls: [call('call_ab-12')] },
      { role: 'tool', tool_call_id: 'call_ab-12', content: 'ok' },
    ];
    const gemini = cleanTranscript(input, 'gemini').messages as Array<{
      tool_calls?: Array<{ id: string }>;
      tool_call_id?: string;
    }>;
    expect(gemini[0]?.tool_calls?.[0]?.id).toBe('callab12');
    expect(gemini[1]?.tool_call_id).toBe('callab12');
    const mistral = cleanTranscript(input, 'mistral').messages as typeof gemini;
    expect(mistral[0]?.tool_calls?.[0]?.id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(mistral[1]?.tool_call_id).toBe(mistral[0]?.tool_calls?.[0]?.id);
    expect(input[0]?.tool_calls?.[0]?.id).toBe('call_ab-12'); // what was given is untouched
  });

  it('knows the family from the kind, the provider name or the base URL', () => {
    expect(hygieneFamily({ kind: 'anthropic', provider: 'claude', baseUrl: '' })).toBe('anthropic');
    expect(
      hygieneFamily({
        kind: 'openai-compatible',
        provider: 'g',
        baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
      }),
    ).toBe('gemini');
    expect(
      hygieneFamily({ kind: 'openai-compatible', provider: 'mistral', baseUrl: 'https://api.mistral.ai/v1' }),
    ).toBe('mistral');
    expect(hygieneFamily({ kind: 'openai', provider: 'openai', baseUrl: 'https://api.openai.com/v1' })).toBe(
      'openai',
    );
  });
});
