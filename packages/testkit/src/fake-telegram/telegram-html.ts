/** What Telegram makes of a `parse_mode: HTML` text: its visible text, or why it refuses it. */
export type ParsedTelegramHtml = { ok: true; visible: string } | { ok: false; description: string };

/** The tags the Bot API accepts in HTML mode (https://core.telegram.org/bots/api#html-style). */
const SUPPORTED_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-emoji',
]);
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };
const TAG = /^<(\/?)([a-z][a-z-]*)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)\s*>/;
const ENTITY = /^&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]+));/i;

/**
 * Parse Telegram HTML as strictly as Telegram does, so that a test sees escaping bugs: a `<` or `&`
 * that is not part of a supported tag or a known entity, and unbalanced tags, are refused with the
 * API's own "can't parse entities" description.
 */
export function parseTelegramHtml(html: string): ParsedTelegramHtml {
  const open: string[] = [];
  let visible = '';
  let index = 0;
  const refuse = (what: string): ParsedTelegramHtml => ({
    ok: false,
    description: `Bad Request: can't parse entities: ${what} at byte offset ${Buffer.byteLength(html.slice(0, index))}`,
  });
  while (index < html.length) {
    const rest = html.slice(index);
    const char = html[index];
    if (char === '<') {
      const tag = TAG.exec(rest);
      if (!tag) return refuse('Unexpected character "<"');
      const [whole, closing, name = ''] = tag;
      if (!SUPPORTED_TAGS.has(name)) return refuse(`Unsupported start tag "${name}"`);
      if (closing) {
        if (open.pop() !== name) return refuse(`Unmatched end tag "${name}"`);
      } else open.push(name);
      index += whole.length;
    } else if (char === '&') {
      const entity = ENTITY.exec(rest);
      const decoded = entity ? decodeEntity(entity) : undefined;
      if (!entity || decoded === undefined) return refuse('Unexpected character "&"');
      visible += decoded;
      index += entity[0].length;
    } else if (char === '>') {
      return refuse('Unexpected character ">"');
    } else {
      visible += char;
      index += 1;
    }
  }
  if (open.length > 0) return refuse(`Can't find end tag corresponding to start tag "${open.at(-1)}"`);
  return { ok: true, visible };
}

function decodeEntity([, decimal, hex, name]: RegExpExecArray): string | undefined {
  if (decimal) return String.fromCodePoint(Number(decimal));
  if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
  return NAMED_ENTITIES[(name ?? '').toLowerCase()];
}
