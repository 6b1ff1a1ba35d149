/** Code spans and fenced blocks: copied as they are (Slack shows them verbatim too). */
const CODE = /(```[\s\S]*?(?:```|$)|`[^`\n]+`)/g;

/** Slack's three control characters; everything else is shown as written. */
function escapeControl(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function inline(text: string): string {
  const links: string[] = [];
  // Links first, kept aside so their URLs are not touched by the emphasis rules.
  let out = text.replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, (_all, label: string, url: string) => {
    links.push(`<${url.replace(/[|<>]/g, encodeURIComponent)}|${escapeControl(label).replace(/\|/g, '¦')}>`);
    return `\u0000${links.length - 1}\u0000`;
  });
  out = escapeControl(out);
  out = out.replace(/^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm, '\u0001$1\u0001');
  // Bold (** or __) becomes Slack's *; single-star italic becomes _ (bold is set aside meanwhile).
  out = out.replace(
    /\*\*(?=\S)([^*\n]+?)\*\*|__(?=\S)([^_\n]+?)__/g,
    (_all, a?: string, b?: string) => `\u0001${a ?? b}\u0001`,
  );
  out = out.replace(/(^|[^*\w])\*(?=\S)([^*\n]+?)\*(?!\*)/g, '$1_$2_');
  out = out.split('\u0001').join('*');
  out = out.replace(/~~(?=\S)([^~\n]+?)~~/g, '~$1~');
  out = out.replace(/^(\s*)[-+] /gm, '$1• ');
  // Markdown's backslash escapes (reply lines use them): Slack has none, so the backslash goes.
  out = out.replace(/\\([\\`*_{}[\]()#+\-.!|~])/g, '$1');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the placeholder set above
  return out.replace(/\u0000(\d+)\u0000/g, (_all, index: string) => links[Number(index)] ?? '');
}

/**
 * An agent's Markdown as Slack mrkdwn: `**bold**` → `*bold*`, `*italic*` → `_italic_`, `~~x~~` →
 * `~x~`, `[label](url)` → `<url|label>`, headings bold, `&`, `<`, `>` escaped; code is kept as is.
 */
export function markdownToMrkdwn(markdown: string): string {
  return markdown
    .split(CODE)
    .map((part, index) => (index % 2 === 1 ? part : inline(part)))
    .join('');
}
