import { OpenLegionError } from '@openlegion/protocol';

/** The Messages API content blocks the adapter writes. */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };
    }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: AnthropicBlock[] };

/** The image types Anthropic accepts. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

interface OpenAiPart {
  type?: string;
  text?: string;
  image_url?: { url?: string } | string;
}

const invalid = (field: string, problem: string) =>
  new OpenLegionError('REQUEST_INVALID', `${field}: ${problem} (the anthropic provider cannot take it)`, {
    details: { field },
  });

/**
 * An OpenAI message `content` (a string, or text and `image_url` parts) as Anthropic blocks: images
 * given as data URLs become base64 image blocks, http(s) URLs URL image blocks. Empty text is left
 * out (Anthropic refuses empty text blocks). `field` names the content in errors.
 */
export function toAnthropicContent(content: unknown, field: string): AnthropicBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw invalid(field, 'must be a string or an array of parts');
  const blocks: AnthropicBlock[] = [];
  (content as OpenAiPart[]).forEach((part, index) => {
    if (part.type === 'text') {
      if (part.text) blocks.push({ type: 'text', text: part.text });
      return;
    }
    if (part.type === 'image_url') {
      blocks.push(toImageBlock(part.image_url, `${field}[${index}].image_url`));
      return;
    }
    throw invalid(`${field}[${index}].type`, `parts of type "${String(part.type)}" are not supported`);
  });
  return blocks;
}

function toImageBlock(image: OpenAiPart['image_url'], field: string): AnthropicBlock {
  const url = typeof image === 'string' ? image : image?.url;
  if (!url) throw invalid(`${field}.url`, 'is missing');
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = (data[1] ?? '').toLowerCase();
    if (!IMAGE_TYPES.has(mediaType))
      throw invalid(
        `${field}.url`,
        `images of type ${mediaType} are not supported (jpeg, png, gif, webp are)`,
      );
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: data[2] ?? '' } };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalid(`${field}.url`, 'must be a data: URL (base64) or an http(s) URL');
}
