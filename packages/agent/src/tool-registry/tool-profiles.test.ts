import { type AgentTool, type ToolGroup, textResult } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { filterByProfile, selectTools } from './tool-profiles.js';

const tool = (name: string, group: ToolGroup): AgentTool => ({
  name,
  group,
  description: name,
  input: z.object({}),
  run: async () => textResult(''),
});
const registered = [
  tool('memory_search', 'memory'),
  tool('read_file', 'files'),
  tool('run_command', 'runtime'),
  tool('web_fetch', 'web'),
  tool('publish', 'mesh'),
  tool('browser_open', 'browser'),
];
const names = (tools: AgentTool[]) => tools.map((t) => t.name);

describe('tool profiles', () => {
  it('gives minimal only memory, coding files and commands, messaging the mesh and the web, full all', () => {
    expect({
      minimal: names(filterByProfile(registered, 'minimal')),
      coding: names(filterByProfile(registered, 'coding')),
      messaging: names(filterByProfile(registered, 'messaging')),
      full: names(filterByProfile(registered, 'full')).length,
    }).toEqual({
      minimal: ['memory_search'],
      coding: ['memory_search', 'read_file', 'run_command'],
      messaging: ['memory_search', 'web_fetch', 'publish'],
      full: 6,
    });
  });

  it('applies a mesh.yaml profile', () => {
    expect(selectTools('coding', registered)).toEqual({
      tools: filterByProfile(registered, 'coding'),
      unknown: [],
    });
  });

  it('applies a list of tool names and reports the names it does not know', () => {
    const selection = selectTools(['read_file', 'raed_file', 'publish'], registered);
    expect([names(selection.tools), selection.unknown]).toEqual([['read_file', 'publish'], ['raed_file']]);
  });

  it('reads a string that is no profile as one tool name', () => {
    expect(selectTools('fulll', registered)).toEqual({ tools: [], unknown: ['fulll'] });
  });
});
