import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentTool, type ChatEvent, textResult } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  counterTool,
  type LoopHarness,
  recordingContextManager,
  startLoopHarness,
  textOf,
} from '../../test/loop-harness.js';
import { INSTRUCTION_TEMPLATES } from '../workspace/workspace-scaffold.js';

const notices = (events: ChatEvent[]) =>
  events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));

const fileTool: AgentTool<Record<string, never>> = {
  name: 'list_files',
  group: 'files',
  description: 'lists files',
  input: z.object({}),
  run: async () => textResult('AGENTS.md'),
};

describe('agent loop: prompt, directives, workspace and heartbeats', () => {
  let harness: LoopHarness;
  afterEach(async () => harness.close());
  const systemPrompt = (index = 0) => textOf(harness.sent()[index]?.messages[0]);

  it('builds the full prompt from its self, SOUL.md, the mesh.yaml soul and AGENTS.md', async () => {
    harness = await startLoopHarness({
      self: { soul: 'Be brief.' },
      script: { default: { text: 'ok' } },
      instructions: { current: async () => ({ ...INSTRUCTION_TEMPLATES, 'SOUL.md': 'Warm and exact.' }) },
    });
    await harness.chat('hi');
    const prompt = systemPrompt();
    expect(
      prompt.startsWith('Today is 2026-03-04 (UTC).\n\nYou are a, an agent in the m mesh. Role: tester.'),
    ).toBe(true);
    expect(prompt.indexOf('Warm and exact.')).toBeLessThan(prompt.indexOf('Be brief.'));
    expect(prompt).toContain('# Operating instructions (AGENTS.md)');
  });

  it('removes a directive from the message the model sees and stores', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'ok' } } });
    await harness.chat('/think why is the sky blue?');
    expect([textOf(harness.sent()[0]?.messages.at(-1)), harness.store.list('c')[0]]).toEqual([
      'why is the sky blue?',
      { role: 'user', content: 'why is the sky blue?' },
    ]);
    expect(systemPrompt()).toContain('step by step');
  });

  it('sends the minimal prompt for /quiet and only the identity line for /silent', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'ok' } } });
    await harness.chat('hello');
    await harness.chat('/quiet yes or no?');
    await harness.chat('/silent 2+2');
    expect(systemPrompt(0)).toContain('Operating instructions');
    expect(systemPrompt(1)).toContain('Text inside <untrusted> tags');
    expect(systemPrompt(1)).not.toContain('Operating instructions');
    expect(systemPrompt(2)).toBe('You are a, an agent in the m mesh. Role: tester.');
  });

  it('offers only the tools of a profile directive, for that turn only', async () => {
    harness = await startLoopHarness({
      tools: [counterTool(), fileTool],
      script: { default: { text: 'ok' } },
    });
    await harness.chat('/minimal what is 2+2?');
    await harness.chat('/coding list the files');
    await harness.chat('and now?');
    const offered = harness.sent().map((request) => (request.tools ?? []).map((tool) => tool.function.name));
    expect(offered).toEqual([['counter'], ['counter', 'list_files'], ['counter', 'list_files']]);
  });

  it('compacts on /compact before answering', async () => {
    const contextManager = recordingContextManager();
    harness = await startLoopHarness({ contextManager, script: { default: { text: 'ok' } } });
    await harness.chat('/compact what did we decide?');
    expect(contextManager.calls).toEqual(['compact:directive', 'prepare']);
  });

  it('answers a bare /compact without calling the LLM', async () => {
    const contextManager = recordingContextManager();
    harness = await startLoopHarness({ contextManager, script: { default: { text: 'ok' } } });
    const events = await harness.chat('/compact');
    expect([contextManager.calls, harness.sent().length, events.at(-1)]).toEqual([
      ['compact:directive'],
      0,
      { type: 'done', conversation_id: 'c', text: '' },
    ]);
  });

  it('caps an oversized MEMORY.md, tells the user once, and keeps its head, tail and a marker', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'ok' } } });
    const memory = `HEAD-OF-MEMORY ${'x'.repeat(50_000)} TAIL-OF-MEMORY`;
    writeFileSync(join(harness.workspace, 'MEMORY.md'), memory);
    const first = await harness.chat('hi');
    const second = await harness.chat('again');
    const prompt = systemPrompt();
    const memorySection = prompt.slice(prompt.indexOf('# Your notes (MEMORY.md)'));
    expect(notices(first)).toEqual([
      expect.stringMatching(/^MEMORY\.md is 50030 characters; the prompt carries \d+/),
    ]);
    const carried = Number(/carries (\d+)/.exec(notices(first)[0] ?? '')?.[1]);
    expect(carried).toBeGreaterThan(14_000);
    expect(carried).toBeLessThanOrEqual(16_000);
    expect(notices(second)).toEqual([]);
    expect(prompt).toContain('HEAD-OF-MEMORY');
    expect(prompt).toContain('TAIL-OF-MEMORY');
    expect(prompt).toContain('read_file("MEMORY.md")');
    expect(memorySection.length).toBeLessThan(16_000 + 300);
  });

  it('removes invisible characters from messages and workspace files before they reach the model', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'ok' } } });
    writeFileSync(join(harness.workspace, 'MEMORY.md'), 'likes\u200B tea\u202E');
    await harness.chat('hel\u202Elo\u{E0041}');
    const messages = harness.sent()[0]?.messages ?? [];
    expect([textOf(messages.at(-1)), textOf(messages[0]).includes('likes tea')]).toEqual(['hello', true]);
  });

  it('never injects daily logs', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'ok' } } });
    writeFileSync(join(harness.workspace, 'memory', '2026-03-04.md'), 'DAILY-LOG-LINE');
    await harness.chat('hi');
    expect(systemPrompt()).not.toContain('DAILY-LOG-LINE');
  });

  it('skips a heartbeat with nothing actionable without calling the LLM', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'should not be asked' } } });
    const beat = await harness.loop.runHeartbeat(
      { pendingMessages: 0, pendingEvents: 0 },
      new AbortController().signal,
    );
    expect([beat, harness.sent().length]).toEqual([
      { ran: false, reason: 'nothing actionable', reply: '', silent: true },
      0,
    ]);
  });

  it('runs a heartbeat when HEARTBEAT.md has a checklist, showing it to the model', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'Inbox checked: 2 new.' } } });
    writeFileSync(join(harness.workspace, 'HEARTBEAT.md'), '# Heartbeat\n\n- check the inbox\n');
    const beat = await harness.loop.runHeartbeat(
      { pendingMessages: 0, pendingEvents: 0 },
      new AbortController().signal,
    );
    expect([beat, harness.sent().length]).toEqual([
      { ran: true, reason: 'HEARTBEAT.md has a checklist', reply: 'Inbox checked: 2 new.', silent: false },
      1,
    ]);
    expect(textOf(harness.sent()[0]?.messages.at(-1))).toContain('- check the inbox');
  });

  it('counts a HEARTBEAT.md of headings and comments as empty', async () => {
    harness = await startLoopHarness({ script: { default: { text: 'should not be asked' } } });
    writeFileSync(join(harness.workspace, 'HEARTBEAT.md'), '# Heartbeat\n\n<!-- nothing yet -->\n## Later\n');
    const beat = await harness.loop.runHeartbeat(
      { pendingMessages: 0, pendingEvents: 0 },
      new AbortController().signal,
    );
    expect([beat.ran, harness.sent().length]).toEqual([false, 0]);
  });

  it('runs a heartbeat for pending messages and reports a silent answer as silent', async () => {
    harness = await startLoopHarness({ script: { default: { text: '__SILENT__' } } });
    const beat = await harness.loop.runHeartbeat(
      { pendingMessages: 2, pendingEvents: 1 },
      new AbortController().signal,
    );
    expect(beat).toEqual({
      ran: true,
      reason: '2 pending message(s), 1 pending event(s)',
      reply: '',
      silent: true,
    });
  });
});
