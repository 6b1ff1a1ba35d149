import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type FakeLlm, startFakeLlm } from '@openlegion/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker, dockerAnswers, inspectContainer, removeMesh } from './support/docker-cli.js';
import { type E2eMesh, freePort, writeMesh } from './support/e2e-mesh.js';
import { REPO_ROOT, runCli } from './support/run-cli.js';

/**
 * MCP servers from npm, unchanged (issue 21): server-everything and server-filesystem over stdio
 * inside the hardened agent container (bundled into the image, launched by `mcp-server-*`), and
 * server-everything over Streamable HTTP through the host (`/mesh/mcp/remote`), whose bearer token
 * is only in the vault: not in the container's env, files or logs. A scripted model calls a tool
 * of each; the operator lists and calls them with `openlegion mcp`.
 */

/** The remote server's token: the host sends it; the agent never sees it. */
const TOKEN = `mcp-remote-${randomBytes(12).toString('hex')}`;
const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

const haveDocker = await dockerAnswers();
if (process.env.OPENLEGION_REQUIRE_DOCKER === '1' && !haveDocker)
  throw new Error('OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers');

describe.runIf(haveDocker)('MCP servers in the hardened container and through the host', () => {
  let llm: FakeLlm;
  let mesh: E2eMesh;
  let remote: ChildProcess;
  const cli = (...args: string[]) =>
    runCli([...args, '--config', mesh.file], { env: { E2E_PROVIDER_KEY: 'k' } });

  beforeAll(async () => {
    const remotePort = await freePort();
    remote = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'packages/agent/test/fixtures/mcp/remote-everything.mjs'),
        EVERYTHING,
        String(remotePort),
        TOKEN,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      remote.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      remote.once('exit', (code) => reject(new Error(`the remote MCP server exited with ${code}`)));
    });
    llm = await startFakeLlm({
      script: {
        rules: [
          { match: { role: 'tool' }, reply: { text: 'mcp done' } },
          {
            match: { last_message: 'use the mcp tools' },
            reply: {
              tool_calls: [
                { id: 'stdio-echo', name: 'everything__echo', arguments: { message: 'from the container' } },
                { id: 'stdio-files', name: 'files__list_directory', arguments: { path: '/data/workspace' } },
                { id: 'remote-echo', name: 'remote__echo', arguments: { message: 'through the host' } },
                { id: 'servers', name: 'mcp_list', arguments: {} },
              ],
            },
          },
          { reply: { text: 'ok' } },
        ],
      },
    });
    mesh = await writeMesh({
      prefix: 'e2e-mcp',
      providerUrl: llm.url,
      runtime: 'docker',
      agents: ['alpha'],
      agentFields: {
        alpha:
          'mcp: { everything: { command: mcp-server-everything, args: [stdio] }, files: { command: mcp-server-filesystem, args: [/data/workspace] } }, permissions: { mcp: [remote] }',
      },
      extra: `mcp:
  servers:
    remote: { url: "http://127.0.0.1:${remotePort}/mcp", auth: { bearer: vault:REMOTE_MCP_TOKEN } }
`,
    });
    const stored = await runCli(['vault', 'set', 'REMOTE_MCP_TOKEN', '--config', mesh.file], {
      input: `${TOKEN}\n`,
    });
    expect(stored.code, stored.stderr).toBe(0);
    const start = await cli('start', '--detach');
    expect(start.code, start.stdout + start.stderr).toBe(0);
    await cli('send', 'alpha', 'hello');
  });

  afterAll(async () => {
    await cli('stop');
    await removeMesh(mesh.name).catch(() => {});
    remote?.kill();
    await llm?.close();
  });

  /** The tool results the model was sent, by tool call id. */
  function toolResults(): Map<string, string> {
    const results = new Map<string, string>();
    for (const call of llm.requests) {
      const messages = (
        call.body as { messages?: Array<{ role: string; tool_call_id?: string; content: unknown }> }
      ).messages;
      for (const message of messages ?? [])
        if (message.role === 'tool' && message.tool_call_id)
          results.set(
            message.tool_call_id,
            typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
          );
    }
    return results;
  }

  it('lists the configured servers and the agents granted them', async () => {
    const listed = await cli('mcp', 'list');
    expect(listed.stdout).toContain('remote  streamable-http (fleet, auth bearer)');
    expect(listed.stdout).toContain('everything  stdio (alpha)  mcp-server-everything stdio');
    expect(listed.stdout).not.toContain(TOKEN);
  });

  it('offers the tools of all three servers to the model, which calls one of each', async () => {
    const sent = await cli('send', 'alpha', 'use the mcp tools');
    expect(sent.code, sent.stderr).toBe(0);
    const offered =
      ((llm.requests.at(-1)?.body ?? {}) as { tools?: Array<{ function: { name: string } }> }).tools ?? [];
    expect(offered.map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(['everything__echo', 'files__list_directory', 'remote__echo', 'mcp_list']),
    );
    const results = toolResults();
    expect(results.get('stdio-echo')).toMatch(
      /<untrusted source="tool everything__echo">\nEcho: from the container\n<\/untrusted>/,
    );
    expect(results.get('stdio-files')).toMatch(/\[(FILE|DIR)\] /);
    expect(results.get('remote-echo')).toContain('Echo: through the host');
    expect(results.get('servers')).toMatch(/everything \(stdio\): ready, \d+ tools/);
    expect(results.get('servers')).toMatch(/remote \(streamable-http\): ready, \d+ tools/);
  });

  it('lets the operator list and call the tools through the host', async () => {
    const tools = await cli('mcp', 'tools', 'alpha', 'remote');
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stdout).toMatch(/^remote {2}streamable-http {2}ready, \d+ tools/);
    const called = await cli('mcp', 'call', 'alpha', 'everything', 'echo', '{"message":"operator"}');
    expect([called.code, called.stdout]).toEqual([0, 'Echo: operator\n']);
  });

  it('keeps the remote token out of the container: env, files and logs', async () => {
    const container = `openlegion-${mesh.name}-alpha`;
    const info = await inspectContainer(container);
    expect(info.Config.Env.join('\n')).not.toContain(TOKEN);
    const found = await docker(
      'exec',
      container,
      'sh',
      '-c',
      `grep -rl "${TOKEN}" /data /tmp /app 2>/dev/null || true`,
    );
    expect(found.trim()).toBe('');
    expect(await docker('logs', container)).not.toContain(TOKEN);
    expect(await readFile(path.join(mesh.dataDir, 'host.log'), 'utf8')).not.toContain(TOKEN);
  });
});
