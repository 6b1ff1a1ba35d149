import { describe, expect, it } from 'vitest';
import { meshConfigSchema } from './mesh-config.js';

const minimal = { llm: { providers: { openai: {} } } };

function issues(config: Record<string, unknown>) {
  const result = meshConfigSchema.safeParse({ ...minimal, ...config });
  return result.success ? [] : result.error.issues.map(({ path, message }) => ({ path, message }));
}

describe('mesh.yaml mcp:', () => {
  it('has no servers and grants none by default', () => {
    const config = meshConfigSchema.parse({ ...minimal, agents: { a: {} } });
    expect(config.mcp.servers).toEqual({});
    expect(config.agents.a?.mcp).toEqual({});
    expect(config.agents.a?.permissions.mcp).toEqual([]);
  });

  it('takes stdio and remote servers, with defaults', () => {
    const config = meshConfigSchema.parse({
      ...minimal,
      mcp: {
        servers: {
          everything: { command: 'mcp-server-everything' },
          docs: { url: 'https://mcp.example.com/mcp', auth: { bearer: 'vault:DOCS_TOKEN' } },
        },
      },
      agents: { a: { permissions: { mcp: ['everything', 'docs'] } } },
    });
    expect(config.mcp.servers.everything).toEqual({
      command: 'mcp-server-everything',
      args: [],
      env: {},
      timeout_ms: 60_000,
    });
    expect(config.mcp.servers.docs).toMatchObject({ transport: 'streamable-http', timeout_ms: 60_000 });
  });

  it('refuses a secret reference in a stdio server env, saying to run it remotely', () => {
    const found = issues({
      agents: { a: { mcp: { gh: { command: 'gh-mcp', env: { GITHUB_TOKEN: 'vault:GITHUB_TOKEN' } } } } },
    });
    expect(found).toHaveLength(1);
    expect(found[0]?.path).toEqual(['agents', 'a', 'mcp', 'gh', 'env', 'GITHUB_TOKEN']);
    expect(found[0]?.message).toMatch(/literal values only; run a server that needs a secret remotely/);
  });

  it('refuses a key written into mesh.yaml instead of a reference', () => {
    const found = issues({
      mcp: { servers: { docs: { url: 'https://mcp.example.com/mcp', auth: { bearer: 'sk-live-123' } } } },
      agents: { a: {} },
    });
    expect(found.length).toBeGreaterThan(0);
  });

  it('names a granted server that does not exist, and one granted twice under one name', () => {
    const found = issues({
      mcp: { servers: { fs: { command: 'mcp-fs' } } },
      agents: { a: { mcp: { fs: { command: 'other' } }, permissions: { mcp: ['fs', 'nope'] } } },
    });
    expect(found).toEqual([
      {
        path: ['agents', 'a', 'permissions', 'mcp', 1],
        message: 'no MCP server "nope" under mcp.servers (have: fs)',
      },
      {
        path: ['agents', 'a', 'mcp', 'fs'],
        message: '"fs" is both this agent\'s own server and a granted mcp.servers entry; rename one',
      },
    ]);
  });

  it('refuses server names that cannot prefix a tool name', () => {
    for (const name of ['a__b', 'Upper', 'x'.repeat(25), '-lead']) {
      expect(issues({ mcp: { servers: { [name]: { command: 'c' } } }, agents: { a: {} } })).not.toEqual([]);
    }
  });
});
