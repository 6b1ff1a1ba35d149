/** Elements that start and end a line of text. */
const BLOCKS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TBODY',
  'THEAD',
  'TFOOT',
  'TR',
  'UL',
]);
const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD']);

/** The minimal DOM shape this needs (linkedom's nodes have it). */
interface TextNodeLike {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<TextNodeLike>;
}

/**
 * Readable plain text of a DOM subtree: block elements on their own lines, paragraphs apart,
 * whitespace collapsed outside `<pre>`, table cells separated by tabs. Unlike `textContent`, the
 * structure a reader sees survives.
 */
export function htmlToText(root: TextNodeLike): string {
  const parts: string[] = [];
  walk(root, parts, false);
  return parts
    .join('')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n[ \t]+/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function walk(node: TextNodeLike, parts: string[], preformatted: boolean): void {
  if (node.nodeType === 3) {
    const text = node.textContent ?? '';
    parts.push(preformatted ? text : text.replace(/\s+/g, ' '));
    return;
  }
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
  const name = node.nodeName.toUpperCase();
  if (SKIPPED.has(name)) return;
  if (name === 'BR') return void parts.push('\n');
  const block = BLOCKS.has(name);
  const paragraph = block && /^(P|H[1-6]|PRE|BLOCKQUOTE|TABLE|UL|OL|FIGURE)$/.test(name);
  if (block) parts.push(paragraph ? '\n\n' : '\n');
  if (name === 'LI') parts.push('- ');
  for (const child of Array.from(node.childNodes)) walk(child, parts, preformatted || name === 'PRE');
  if (name === 'TD' || name === 'TH') parts.push('\t');
  if (block) parts.push(paragraph ? '\n\n' : '\n');
}
