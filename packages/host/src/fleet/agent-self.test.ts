import { meshConfigSchema } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { mcpServersOf, sharedRecallScopes } from './agent-self.js';

describe('sharedRecallScopes', () => {
  it('names the scopes read permissions name, and global for a pattern matching it', () => {
    expect(sharedRecallScopes([])).toEqual([]);
    expect(sharedRecallScopes(['global', 'squad:ops'])).toEqual(['global', 'squad:ops']);
    expect(sharedRecallScopes(['*'])).toEqual(['global']);
    // A squad glob names no squad: recall does not guess, memory_search reads it.
    expect(sharedRecallScopes(['squad:*'])).toEqual([]);
  });

  it('searches at most eight scopes a turn', () => {
    const many = Array.from({ length: 20 }, (_, i) => `squad:s${i}`);
    expect(sharedRecallScopes(many)).toHaveLength(8);
  });
});

describe('mcpServersOf', () => {
  it("lists the agent's own stdio servers, then the granted ones, without a remote address or credential", () => {
    const config = meshConfigSchema.parse({
      llm: { providers: { openai: {} } },
      mcp: {
        servers: {
          fs: { command: 'mcp-server-filesystem', args: ['/data'] },
          docs: { url: 'https://mcp.example.com/mcp', auth: { bearer: 'vault:DOCS_TOKEN' } },
          unused: { command: 'x' },
        },
      },
      agents: {
        a: {
          mcp: { mine: { command: 'my-mcp', env: { MODE: 'fast' } } },
          permissions: { mcp: ['fs', 'docs'] },
        },
        b: {},
      },
    });
    expect(mcpServersOf(config, 'a')).toEqual([
      {
        name: 'mine',
        transport: 'stdio',
        command: 'my-mcp',
        args: [],
        env: { MODE: 'fast' },
        timeout_ms: 60_000,
      },
      {
        name: 'fs',
        transport: 'stdio',
        command: 'mcp-server-filesystem',
        args: ['/data'],
        env: {},
        timeout_ms: 60_000,
      },
      { name: 'docs', transport: 'streamable-http', timeout_ms: 60_000 },
    ]);
    expect(JSON.stringify(mcpServersOf(config, 'a'))).not.toContain('DOCS_TOKEN');
    expect(mcpServersOf(config, 'b')).toEqual([]);
  });
});
