import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeLlmScriptError, loadFakeLlmScript, parseFakeLlmScript } from '../index.js';

function issuesOf(input: unknown): string[] {
  try {
    parseFakeLlmScript(input);
  } catch (error) {
    if (error instanceof FakeLlmScriptError) return error.details.issues;
    throw error;
  }
  throw new Error('expected the script to be rejected');
}

describe('parseFakeLlmScript', () => {
  it('parses the YAML script format with rules, failures and a default', () => {
    const script = parseFakeLlmScript(`
models: [gpt-test]
rules:
  - match: { last_message: hello }
    times: 1
    reply:
      text: Hello!
      tool_calls: [{ name: get_time, arguments: { tz: UTC } }]
  - match: { last_message: boom }
    fail: { status: 503, message: overloaded }
default:
  text: "echo: {{last_message}}"
`);
    expect(script.models).toEqual(['gpt-test']);
    expect(script.rules[0]).toMatchObject({
      match: { last_message: 'hello' },
      times: 1,
      reply: { text: 'Hello!', tool_calls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] },
    });
    expect(script.rules[1]?.fail).toEqual({ status: 503, message: 'overloaded' });
    expect(script.default).toEqual({ text: 'echo: {{last_message}}' });
  });

  it('fills defaults for an empty script', () => {
    expect(parseFakeLlmScript('')).toEqual({ models: ['gpt-test', 'gpt-test-mini'], rules: [] });
  });

  it('accepts an already-parsed object', () => {
    const script = parseFakeLlmScript({ rules: [{ reply: { chunks: ['a', 'b'] } }] });
    expect(script.rules[0]).toEqual({ match: {}, reply: { chunks: ['a', 'b'] } });
  });

  it('names the rule whose reply has no content', () => {
    const issues = issuesOf({
      rules: [{ reply: { text: 'a' } }, { reply: { text: 'b' } }, { reply: { delay_ms: 5 } }],
    });
    expect(issues).toEqual(['rules[2].reply: give text, chunks or tool_calls']);
  });

  it('rejects a rule with neither reply nor fail', () => {
    expect(issuesOf({ rules: [{ match: { model: 'x' } }] })).toEqual(['rules[0]: give reply or fail']);
  });

  it('rejects a reply next to a plain HTTP failure', () => {
    expect(issuesOf({ rules: [{ reply: { text: 'a' }, fail: { status: 500 } }] })[0]).toMatch(
      /^rules\[0\]: give reply or fail, not both/,
    );
  });

  it('allows a reply to feed a disconnecting failure', () => {
    const script = parseFakeLlmScript({
      rules: [{ reply: { text: 'a b c' }, fail: { disconnect_after_chunks: 1 } }],
    });
    expect(script.rules[0]?.fail).toEqual({ disconnect_after_chunks: 1 });
  });

  it('rejects both text and chunks', () => {
    expect(issuesOf({ default: { text: 'a', chunks: ['a'] } })).toEqual([
      'default: give either text or chunks, not both',
    ]);
  });

  it('rejects misspelled keys, naming where they are', () => {
    expect(issuesOf({ rules: [{ match: { last_mesage: 'hi' }, reply: { text: 'a' } }] })[0]).toMatch(
      /^rules\[0\]\.match: .*last_mesage/,
    );
  });

  it('rejects an invalid regular expression', () => {
    expect(issuesOf({ rules: [{ match: { last_message_regex: '(' }, reply: { text: 'a' } }] })).toEqual([
      'rules[0].match.last_message_regex: not a valid regular expression',
    ]);
  });

  it('rejects a failure status outside 400-599', () => {
    expect(issuesOf({ rules: [{ fail: { status: 200 } }] })[0]).toMatch(/^rules\[0\]\.fail\.status: /);
  });

  it('reports invalid YAML with its code', () => {
    const error = (() => {
      try {
        parseFakeLlmScript('rules: [unclosed');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(FakeLlmScriptError);
    expect(error).toMatchObject({ code: 'FAKE_LLM_SCRIPT_INVALID', message: /not valid YAML/ });
  });
});

describe('loadFakeLlmScript', () => {
  it('reads and validates a script file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-llm-'));
    const file = join(dir, 'script.yaml');
    await writeFile(file, 'rules:\n  - match: { role: user }\n    reply: { text: hi }\n');
    const script = await loadFakeLlmScript(file);
    expect(script.rules[0]?.match).toEqual({ role: 'user' });
  });

  it('names the file when it cannot be read', async () => {
    await expect(loadFakeLlmScript('/nonexistent/script.yaml')).rejects.toThrow(
      /invalid fake-llm script \(\/nonexistent\/script\.yaml\): cannot read file/,
    );
  });
});
