import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AgentTool, textResult } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { counterTool, type LoopHarness, startLoopHarness, textOf } from '../../test/loop-harness.js';
import { createSkillViewTool, loadSkills, skillRoots } from '../skills/index.js';

const call = (name: string, args: unknown) => ({ name, arguments: args as Record<string, unknown> });

/** A stand-in for a core tool (same name), so the test needs no file system or network. */
function namedTool(name: string, group: AgentTool['group'], description: string): AgentTool {
  return { name, group, description, input: z.object({}), run: async () => textResult(`${name} ran`) };
}

const tools = () => [
  namedTool('read_file', 'files', 'Read a file.'),
  namedTool('memory_search', 'memory', 'Search memory.'),
  counterTool() as AgentTool,
  namedTool('browser_navigate', 'browser', 'Open a page in the browser.'),
  namedTool('browser_click', 'browser', 'Click an element of the page.'),
];

describe('agent loop: tool schemas on demand', () => {
  let harness: LoopHarness;
  afterEach(async () => harness.close());
  const offered = () =>
    harness.sent().map((request) => (request.tools ?? []).map((tool) => tool.function.name));

  it('offers the core tools and tool_search; a search loads tools after that stable prefix, for the rest of the conversation', async () => {
    harness = await startLoopHarness({
      self: { tool_loading: 'on_demand' },
      tools: tools(),
      script: {
        rules: [
          { match: { tool_result: 'count=1' }, reply: { text: 'counted' } },
          { match: { tool_result: 'Loaded;' }, reply: { tool_calls: [call('counter', { by: 1 })] } },
          {
            match: { last_message: 'count once' },
            reply: { tool_calls: [call('tool_search', { query: 'counter' })] },
          },
          { match: { last_message: 'and browse' }, reply: { text: 'ok' } },
        ],
      },
    });
    await harness.chat('count once');
    await harness.chat('and browse');
    expect(offered()).toEqual([
      ['read_file', 'memory_search', 'tool_search'],
      ['read_file', 'memory_search', 'tool_search', 'counter'],
      ['read_file', 'memory_search', 'tool_search', 'counter'],
      ['read_file', 'memory_search', 'tool_search', 'counter'],
    ]);
    const prompt = harness.sent()[0]?.messages[0]?.content;
    expect(prompt).toContain('Tools you can call: read_file, memory_search, tool_search.');
  });

  it('runs a permitted tool called before it was loaded, and offers it from then on', async () => {
    harness = await startLoopHarness({
      self: { tool_loading: 'on_demand' },
      tools: tools(),
      script: {
        rules: [
          { match: { tool_result: 'browser_click ran' }, reply: { text: 'clicked' } },
          { match: { last_message: 'click it' }, reply: { tool_calls: [call('browser_click', {})] } },
        ],
      },
    });
    const events = await harness.chat('click it');
    expect(events.at(-1)).toEqual({ type: 'done', conversation_id: 'c', text: 'clicked' });
    expect(offered()[1]).toEqual(['read_file', 'memory_search', 'tool_search', 'browser_click']);
  });

  it('loads a whole group by its name', async () => {
    harness = await startLoopHarness({
      self: { tool_loading: 'on_demand' },
      tools: tools(),
      script: {
        rules: [
          { match: { tool_result: 'Loaded;' }, reply: { text: 'ready' } },
          {
            match: { last_message: 'browse' },
            reply: { tool_calls: [call('tool_search', { query: 'browser' })] },
          },
        ],
      },
    });
    await harness.chat('browse');
    expect(offered()[1]?.slice(3)).toEqual(['browser_navigate', 'browser_click']);
  });

  it('always offers the tools a mesh.yaml tools list names (pinned)', async () => {
    harness = await startLoopHarness({
      self: { tool_loading: 'on_demand', tools: ['read_file', 'counter', 'browser_click'] },
      // The runtime hands the loop only what the list names (selectTools).
      tools: tools().filter((tool) => ['read_file', 'counter', 'browser_click'].includes(tool.name)),
      script: { default: { text: 'ok' } },
    });
    await harness.chat('hi');
    expect(offered()).toEqual([['read_file', 'counter', 'browser_click']]);
  });

  it('offers the tools other conversations loaded only to those conversations', async () => {
    harness = await startLoopHarness({
      self: { tool_loading: 'on_demand' },
      tools: tools(),
      script: {
        rules: [
          { match: { tool_result: 'count=1' }, reply: { text: 'counted' } },
          { match: { last_message: 'count once' }, reply: { tool_calls: [call('counter', { by: 1 })] } },
          { match: { last_message: 'hello' }, reply: { text: 'hi' } },
        ],
      },
    });
    await harness.chat('count once', { conversationId: 'one' });
    await harness.chat('hello', { conversationId: 'two' });
    expect(offered().at(-1)).toEqual(['read_file', 'memory_search', 'tool_search']);
  });

  it('sends every tool with tool_loading all', async () => {
    harness = await startLoopHarness({
      self: { tool_loading: 'all' },
      tools: tools(),
      script: { default: { text: 'ok' } },
    });
    await harness.chat('hi');
    expect(offered()[0]).toEqual([
      'read_file',
      'memory_search',
      'counter',
      'browser_navigate',
      'browser_click',
    ]);
  });

  it('lists a skill copied into the workspace in the prompt; the model views it and follows it', async () => {
    let workspace = '';
    const skills = () => loadSkills(skillRoots({ workspace }), { platform: 'linux', env: {}, disabled: [] });
    harness = await startLoopHarness({
      self: { tool_loading: 'on_demand' },
      tools: [...tools(), createSkillViewTool(skills) as AgentTool],
      skills,
      script: {
        rules: [
          { match: { tool_result: 'read_file ran' }, reply: { text: 'followed the skill' } },
          {
            match: { tool_result: 'CSV summary (workspace copy)' },
            reply: { tool_calls: [call('read_file', {})] },
          },
          {
            match: { last_message: 'sum up data.csv' },
            reply: { tool_calls: [call('skill_view', { name: 'csv-summary' })] },
          },
        ],
      },
    });
    workspace = harness.workspace;
    const fixture = fileURLToPath(new URL('../../test/fixtures/skills/workspace/skills', import.meta.url));
    cpSync(fixture, join(workspace, 'skills'), { recursive: true });
    const events = await harness.chat('sum up data.csv');
    expect(events.at(-1)).toEqual({ type: 'done', conversation_id: 'c', text: 'followed the skill' });
    expect(textOf(harness.sent()[0]?.messages[0])).toContain(
      "- csv-summary: Summarise a CSV file, the agent's own refined version.",
    );
    expect(offered()[0]).toContain('skill_view');
  });
});
