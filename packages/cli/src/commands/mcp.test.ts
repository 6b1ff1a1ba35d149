import { parseMeshConfig } from '@openlegion/host/config';
import { describe, expect, it } from 'vitest';
import { mcpServerRows, parseToolArguments } from './mcp.js';

const config = parseMeshConfig(`llm:
  providers: { openai: { api_key: vault:OPENAI_API_KEY } }
mcp:
  servers:
    everything: { command: mcp-server-everything, args: [stdio] }
    docs: { url: "https://mcp.example.com/mcp", auth: { bearer: vault:DOCS_TOKEN } }
    idle: { url: "https://idle.example.com/sse", transport: sse }
agents:
  researcher:
    role: finds sources
    mcp: { files: { command: mcp-server-filesystem, args: [/data/workspace] } }
    permissions: { mcp: [everything, docs] }
  writer:
    role: writes
    permissions: { mcp: [everything] }
`);

describe('openlegion mcp', () => {
  it("lists fleet servers with the agents granted each, then agents' own, never a secret", () => {
    expect(mcpServerRows(config)).toEqual([
      {
        name: 'everything',
        scope: 'fleet',
        transport: 'stdio',
        target: 'mcp-server-everything stdio',
        auth: 'none',
        agents: ['researcher', 'writer'],
      },
      {
        name: 'docs',
        scope: 'fleet',
        transport: 'streamable-http',
        target: 'https://mcp.example.com/mcp',
        auth: 'bearer',
        agents: ['researcher'],
      },
      {
        name: 'idle',
        scope: 'fleet',
        transport: 'sse',
        target: 'https://idle.example.com/sse',
        auth: 'none',
        agents: [],
      },
      {
        name: 'files',
        scope: 'researcher',
        transport: 'stdio',
        target: 'mcp-server-filesystem /data/workspace',
        auth: 'none',
        agents: ['researcher'],
      },
    ]);
  });

  it('takes one JSON object as the tool arguments and says what is wrong otherwise', () => {
    expect(parseToolArguments('{"message":"hi"}')).toEqual({ message: 'hi' });
    expect(parseToolArguments(undefined)).toEqual({});
    expect(() => parseToolArguments('[1]')).toThrow(
      'the tool arguments must be one JSON object, e.g. \'{"message":"hi"}\'',
    );
    expect(() => parseToolArguments('{oops')).toThrow(/^the tool arguments are not JSON: /);
  });
});
