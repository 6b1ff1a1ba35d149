import { describe, expect, it } from 'vitest';
import { MCP_SCHEMA_MAX_CHARS, mcpToolDefinition } from './mcp-tool-schema.js';

const objectSchema = { type: 'object', properties: { q: { type: 'string' } } };

describe('mcpToolDefinition', () => {
  it("namespaces the tool, drops $schema and marks the description as the server's", () => {
    expect(
      mcpToolDefinition('docs', {
        name: 'search',
        description: 'Search\u200B docs',
        inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...objectSchema },
      }),
    ).toEqual({
      ok: true,
      name: 'docs__search',
      serverTool: 'search',
      description: '[MCP server docs] Search docs',
      parameters: objectSchema,
    });
  });

  it('cuts a long description', () => {
    const definition = mcpToolDefinition('docs', {
      name: 'a',
      description: 'x'.repeat(5_000),
      inputSchema: objectSchema,
    });
    expect(definition.ok && definition.description.length).toBe('[MCP server docs] '.length + 1_024 + 1);
  });

  it.each([
    [
      'a name with a dot',
      { name: 'get.page', inputSchema: objectSchema },
      'its name "docs__get.page" is not 1-64 letters, digits, "_" or "-", which model APIs require',
    ],
    [
      'a name too long',
      { name: 'x'.repeat(60), inputSchema: objectSchema },
      /^its name "docs__x+" is not 1-64/,
    ],
    [
      'a schema that is not an object',
      { name: 'a', inputSchema: { type: 'string' } },
      'its input schema is not a JSON Schema of type "object"',
    ],
    [
      'no schema at all',
      { name: 'a', inputSchema: null },
      'its input schema is not a JSON Schema of type "object"',
    ],
    [
      'a schema too large',
      { name: 'a', inputSchema: { type: 'object', description: 'y'.repeat(MCP_SCHEMA_MAX_CHARS) } },
      /^its input schema is \d+ characters, over the 16000 allowed$/,
    ],
    [
      'a schema too deep',
      { name: 'a', inputSchema: { type: 'object', properties: nested(12) } },
      /^its input schema nests 2\d levels deep, over the 20 allowed$/,
    ],
  ])('leaves out %s with the reason', (_case, tool, reason) => {
    const definition = mcpToolDefinition('docs', tool);
    expect(definition.ok).toBe(false);
    if (!definition.ok)
      expect(definition.reason).toEqual(typeof reason === 'string' ? reason : expect.stringMatching(reason));
  });
});

function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i += 1) schema = { type: 'object', properties: { inner: schema } };
  return { inner: schema };
}
