import { describe, expect, it } from 'vitest';
import { MCP_RESULT_MAX_CHARS, MCP_RESULT_MAX_IMAGES, mcpToolResult } from './mcp-result.js';

describe('mcpToolResult', () => {
  it('maps text, images, embedded resources, links and audio', () => {
    const result = mcpToolResult({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/zip' } },
        { type: 'resource_link', uri: 'demo://x', name: 'X' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: [
            'hello',
            '[resource file:///a.txt]\ninside',
            '[resource file:///b.bin, application/zip, 0 KB: binary, not shown]',
            '[resource link demo://x (X): read it with mcp_read_resource]',
            '[audio audio/wav, 0 KB: not shown]',
          ].join('\n'),
        },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      ],
    });
  });

  it('keeps the error flag, and uses structured content when there is no content', () => {
    expect(mcpToolResult({ content: [], structuredContent: { sum: 3 }, isError: true })).toEqual({
      content: [{ type: 'text', text: '{"sum":3}' }],
      isError: true,
    });
  });

  it('bounds the text and the number of images', () => {
    const images = Array.from({ length: MCP_RESULT_MAX_IMAGES + 1 }, () => ({
      type: 'image',
      data: 'aGk=',
      mimeType: 'image/png',
    }));
    const result = mcpToolResult({
      content: [{ type: 'text', text: 'z'.repeat(MCP_RESULT_MAX_CHARS + 10) }, ...images],
    });
    expect(result.content.filter((part) => part.type === 'image')).toHaveLength(MCP_RESULT_MAX_IMAGES);
    const [first] = result.content;
    // The fifth image is named in the text, which then runs past the limit.
    expect(first?.type === 'text' ? first.text.slice(MCP_RESULT_MAX_CHARS) : '').toBe(
      '\n[… 68 more characters cut]',
    );
  });
});
