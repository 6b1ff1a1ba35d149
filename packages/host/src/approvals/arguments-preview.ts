/**
 * What the operator is shown of a tool call's arguments. They come from the agent (untrusted,
 * possibly steered by a prompt injection), so the preview is bounded in size and depth, has no
 * control or invisible characters that could fake a line in a terminal or a chat, and never holds
 * a value under a key that names a secret, nor the agent's own tokens.
 */

/** One line the operator reads before saying yes. */
export const ARGUMENTS_PREVIEW_MAX_CHARS = 400;
/** Nesting the preview walks; deeper values show as `…`. */
const MAX_DEPTH = 6;
/** Keys and items of one object or array the preview walks. */
const MAX_ENTRIES = 50;
/** Characters of one string value kept before the whole preview is cut. */
const MAX_STRING_CHARS = 300;
/** A tool name as shown: one short line. */
export const TOOL_NAME_MAX_CHARS = 120;

/** Keys whose values are never shown: a model may put a credential there. */
const SECRET_KEY =
  /token|secret|passw|api[_-]?key|authori[sz]ation|cookie|credential|private[_-]?key|bearer/i;
const REDACTED = '[redacted]';

/**
 * Control and format characters (C0/C1, zero-width, bidi marks and overrides, the tag block) and
 * the line and paragraph separators: each is replaced by a space so a preview stays one honest line.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** `text` with control and invisible characters replaced by spaces, cut to `max` characters. */
export function displayText(text: string, max: number): string {
  const clean = text.replace(UNPRINTABLE, ' ');
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

/**
 * The arguments as one line of JSON, at most {@link ARGUMENTS_PREVIEW_MAX_CHARS} characters, with
 * secret-looking keys' values and every string in `hide` replaced by `[redacted]`.
 */
export function argumentsPreview(value: unknown, hide: readonly string[] = []): string {
  const secrets = hide.filter((secret) => secret.length >= 8);
  const scrub = (text: string) =>
    secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text.slice(0, MAX_STRING_CHARS * 4));
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') {
      const scrubbed = scrub(node);
      return scrubbed.length > MAX_STRING_CHARS ? `${scrubbed.slice(0, MAX_STRING_CHARS)}…` : scrubbed;
    }
    if (node === null || typeof node !== 'object') return typeof node === 'bigint' ? String(node) : node;
    if (depth >= MAX_DEPTH) return '…';
    if (Array.isArray(node)) return node.slice(0, MAX_ENTRIES).map((item) => walk(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(node).slice(0, MAX_ENTRIES))
      out[scrub(key)] = SECRET_KEY.test(key) ? REDACTED : walk(item, depth + 1);
    return out;
  };
  const json = value === undefined ? '{}' : (JSON.stringify(walk(value, 0)) ?? 'null');
  return displayText(json, ARGUMENTS_PREVIEW_MAX_CHARS);
}
