import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdio, testManager } from '../../test/mcp-servers.js';
import { callTool, makeTempDir, toolNamed } from '../../test/tool-harness.js';
import type { McpManager } from './mcp-manager.js';

const BUNDLER = new URL('../../scripts/bundle-mcp-servers.mjs', import.meta.url).pathname;

// The agent image ships the servers as single-file bundles (scripts/build-agent-image.sh): built
// here the same way and run over stdio, outside Docker.
describe('the bundled MCP servers of the agent image', () => {
  const temp = makeTempDir('ol-mcp-bundled-');
  const out = path.join(temp.dir, 'mcp');
  const workspace = path.join(temp.dir, 'workspace');
  let manager: McpManager;

  beforeAll(async () => {
    execFileSync(process.execPath, [BUNDLER, out], { stdio: 'pipe' });
    execFileSync('mkdir', ['-p', workspace]);
    writeFileSync(path.join(workspace, 'plan.md'), '# plan\n');
    manager = testManager(
      [
        stdio('everything', [path.join(out, 'server-everything/dist/index.mjs'), 'stdio']),
        stdio('files', [path.join(out, 'server-filesystem/dist/index.mjs'), workspace]),
      ],
      workspace,
    );
    await manager.start();
  }, 60_000);
  afterAll(async () => {
    await manager.close();
    temp.remove();
  });

  it('starts both bundles, with the docs server-everything serves as resources', async () => {
    expect(manager.servers().map((server) => [server.name, server.state, server.error])).toEqual([
      ['everything', 'ready', undefined],
      ['files', 'ready', undefined],
    ]);
    const resources = await callTool(
      toolNamed([...manager.tools()], 'mcp_list'),
      { kind: 'resources', server: 'everything' },
      { workspace },
    );
    expect(resources.text).toContain('demo://resource/static/document/instructions.md');
  });

  it('calls a tool of each', async () => {
    const tools = [...manager.tools()];
    expect(
      await callTool(toolNamed(tools, 'everything__echo'), { message: 'bundled' }, { workspace }),
    ).toEqual({
      text: 'Echo: bundled',
      isError: false,
    });
    const listing = await callTool(
      toolNamed(tools, 'files__list_directory'),
      { path: workspace },
      { workspace },
    );
    expect(listing).toEqual({ text: '[FILE] plan.md', isError: false });
  });
});
