import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverEntry, stdio, testManager } from '../../test/mcp-servers.js';
import { callTool, makeTempDir, toolNamed } from '../../test/tool-harness.js';
import { toolDefinition } from '../loop/tool-arguments.js';
import type { McpManager } from './mcp-manager.js';

// The real reference servers from npm, unchanged, over stdio (from node_modules, no registry).
describe('McpManager with server-everything and server-filesystem', () => {
  const temp = makeTempDir('ol-mcp-');
  let manager: McpManager;

  beforeAll(async () => {
    writeFileSync(path.join(temp.dir, 'notes.txt'), 'the answer is 42\n');
    manager = testManager(
      [
        stdio('everything', [serverEntry('server-everything'), 'stdio']),
        stdio('files', [serverEntry('server-filesystem'), temp.dir]),
      ],
      temp.dir,
    );
    await manager.start();
  });
  afterAll(async () => {
    await manager.close();
    temp.remove();
  });

  it('starts both servers and offers their tools as server__tool with the catalogue tools', () => {
    expect(manager.servers().map((server) => [server.name, server.state])).toEqual([
      ['everything', 'ready'],
      ['files', 'ready'],
    ]);
    const names = manager.tools().map((tool) => tool.name);
    expect(names.slice(0, 3)).toEqual(['mcp_list', 'mcp_read_resource', 'mcp_get_prompt']);
    expect(names).toEqual(
      expect.arrayContaining(['everything__echo', 'files__read_text_file', 'files__list_directory']),
    );
    expect(manager.tools().every((tool) => tool.group === 'mcp')).toBe(true);
  });

  it("gives the model the server's JSON Schema and a bounded description marked as the server's", () => {
    const definition = toolDefinition(toolNamed([...manager.tools()], 'everything__echo'));
    expect(definition.function.description).toMatch(/^\[MCP server everything\] /);
    expect(definition.function.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    expect(definition.function.parameters).not.toHaveProperty('$schema');
  });

  it('calls echo through the agent tool', async () => {
    const echo = toolNamed([...manager.tools()], 'everything__echo');
    expect(await callTool(echo, { message: 'hello mcp' }, { workspace: temp.dir })).toEqual({
      text: 'Echo: hello mcp',
      isError: false,
    });
  });

  it('reports progress of a long tool as notices', async () => {
    const notices: string[] = [];
    const long = toolNamed([...manager.tools()], 'everything__trigger-long-running-operation');
    const result = await callTool(
      long,
      { duration: 0.3, steps: 3 },
      { workspace: temp.dir, notice: (m) => notices.push(m) },
    );
    expect(result.text).toContain('Long running operation completed');
    // The last step's notification may arrive after the answer, when the SDK no longer reports it.
    expect(notices.slice(0, 2)).toEqual(['progress 1/3', 'progress 2/3']);
  });

  it('maps an image result to an image the model sees', async () => {
    const image = toolNamed([...manager.tools()], 'everything__get-tiny-image');
    const result = await image.run({}, { workspace: temp.dir, signal: new AbortController().signal });
    expect(result.content.some((part) => part.type === 'image' && part.mimeType === 'image/png')).toBe(true);
  });

  it('reads a file through server-filesystem, and refuses one outside its folder', async () => {
    const read = toolNamed([...manager.tools()], 'files__read_text_file');
    expect(await callTool(read, { path: path.join(temp.dir, 'notes.txt') }, { workspace: temp.dir })).toEqual(
      {
        text: 'the answer is 42\n',
        isError: false,
      },
    );
    const outside = await callTool(read, { path: '/etc/passwd' }, { workspace: temp.dir });
    expect(outside.isError).toBe(true);
    expect(outside.text).toMatch(/Access denied/);
  });

  it('lists and reads resources, and lists and gets prompts', async () => {
    const tools = [...manager.tools()];
    const resources = await callTool(
      toolNamed(tools, 'mcp_list'),
      { kind: 'resources', server: 'everything' },
      { workspace: temp.dir },
    );
    expect(resources.text).toMatch(/demo:\/\/resource\/static\/document\//);
    const uri = /demo:\/\/resource\/static\/document\/\S+/.exec(resources.text)?.[0] ?? '';
    const read = await callTool(
      toolNamed(tools, 'mcp_read_resource'),
      { server: 'everything', uri },
      { workspace: temp.dir },
    );
    expect(read.isError).toBe(false);
    expect(read.text).toContain(`[resource ${uri}]`);
    const prompts = await callTool(
      toolNamed(tools, 'mcp_list'),
      { kind: 'prompts', server: 'everything' },
      { workspace: temp.dir },
    );
    expect(prompts.text).toMatch(/simple-prompt\(\)/);
    const prompt = await callTool(
      toolNamed(tools, 'mcp_get_prompt'),
      { server: 'everything', name: 'simple-prompt' },
      { workspace: temp.dir },
    );
    expect(prompt.text).toMatch(/^user: /m);
  });

  it('answers an unknown tool on the operator path with AGENT_MCP_TOOL_UNKNOWN', async () => {
    await expect(manager.call('everything', 'ehco', {})).rejects.toMatchObject({
      code: 'AGENT_MCP_TOOL_UNKNOWN',
      message: expect.stringMatching(/^MCP server everything has no tool "ehco"; its tools: echo, /),
    });
    await expect(manager.call('nope', 'echo', {})).rejects.toMatchObject({
      code: 'AGENT_MCP_SERVER_UNKNOWN',
      message: 'this agent has no MCP server "nope"; its servers: everything, files',
    });
  });
});
