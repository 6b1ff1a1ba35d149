import { Marked, type Tokens } from 'marked';

/** Escape text for Telegram HTML: only `&`, `<` and `>` need it (and `"` inside attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const escapeAttribute = (text: string) => escapeHtml(text).replace(/"/g, '&quot;');

/** Undo marked's own escaping of text tokens (it escapes for browsers, with more entities). */
function unescapeMarked(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

const SAFE_LINK = /^(https?:|mailto:|tg:)/i;

/**
 * Markdown rendered to the small HTML subset Telegram accepts (b, i, s, code, pre, a, blockquote):
 * headings become bold lines, lists bullet lines, tables preformatted text, raw HTML plain text.
 */
const telegramMarked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    space: () => '',
    code: ({ text, lang }: Tokens.Code) => {
      const language = lang?.match(/^[\w+-]+/)?.[0];
      const open = language ? `<pre><code class="language-${language}">` : '<pre><code>';
      return `${open}${escapeHtml(text)}</code></pre>\n\n`;
    },
    blockquote({ tokens }: Tokens.Blockquote) {
      return `<blockquote>${this.parser.parse(tokens).trim()}</blockquote>\n\n`;
    },
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    heading({ tokens }: Tokens.Heading) {
      return `<b>${this.parser.parseInline(tokens)}</b>\n\n`;
    },
    hr: () => '———\n\n',
    list(token: Tokens.List) {
      const start = typeof token.start === 'number' ? token.start : 1;
      const items = token.items.map((item, index) => {
        const marker = token.ordered ? `${start + index}.` : '•';
        const check = item.task ? (item.checked ? '☑ ' : '☐ ') : '';
        const parts = item.tokens.map((part) => this.parser.parse([part]).trim()).filter(Boolean);
        const body = parts.join('\n').replace(/\n/g, '\n  ');
        return `${marker} ${check}${body}`;
      });
      return `${items.join('\n')}\n\n`;
    },
    checkbox: () => '',
    paragraph({ tokens }: Tokens.Paragraph) {
      return `${this.parser.parseInline(tokens)}\n\n`;
    },
    table(token: Tokens.Table) {
      const cell = (cells: Tokens.TableCell[]) =>
        cells.map((entry) => unescapeMarked(entry.text)).join(' | ');
      const lines = [cell(token.header), ...token.rows.map(cell)];
      return `<pre>${escapeHtml(lines.join('\n'))}</pre>\n\n`;
    },
    strong({ tokens }: Tokens.Strong) {
      return `<b>${this.parser.parseInline(tokens)}</b>`;
    },
    em({ tokens }: Tokens.Em) {
      return `<i>${this.parser.parseInline(tokens)}</i>`;
    },
    del({ tokens }: Tokens.Del) {
      return `<s>${this.parser.parseInline(tokens)}</s>`;
    },
    codespan: ({ text }: Tokens.Codespan) => `<code>${escapeHtml(unescapeMarked(text))}</code>`,
    br: () => '\n',
    link({ href, tokens }: Tokens.Link) {
      const label = this.parser.parseInline(tokens);
      return SAFE_LINK.test(href) ? `<a href="${escapeAttribute(href)}">${label}</a>` : label;
    },
    image: ({ href, text }: Tokens.Image) =>
      SAFE_LINK.test(href)
        ? `<a href="${escapeAttribute(href)}">${escapeHtml(text || href)}</a>`
        : escapeHtml(text),
    text(token: Tokens.Text | Tokens.Escape) {
      if ('tokens' in token && token.tokens) return this.parser.parseInline(token.tokens);
      return escapeHtml(unescapeMarked(token.text));
    },
  },
});

/**
 * Render a model's Markdown as Telegram HTML (`parse_mode: 'HTML'`). Everything the model wrote is
 * escaped: a `<`, `>` or `&` in its text or code never becomes markup.
 *
 * @example
 * markdownToTelegramHtml('**x** < y'); // '<b>x</b> &lt; y'
 */
export function markdownToTelegramHtml(markdown: string): string {
  return (telegramMarked.parse(markdown) as string).replace(/\n{3,}/g, '\n\n').trim();
}
