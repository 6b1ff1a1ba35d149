import { type AriaNode, isInteractive, walkNodes } from './aria-node.js';

/** How a snapshot is printed. */
export interface RenderOptions {
  /** Drop unnamed structure (generic, list, paragraph wrappers …), keeping its text and children. */
  compact: boolean;
  /** Only elements one can act on, as a flat list. */
  interactiveOnly: boolean;
  /** Deepest printed level (1 = top level only). */
  maxDepth?: number;
  /** Link targets after each link. */
  urls: boolean;
  /** Refs to mark `[new]`. */
  newRefs: ReadonlySet<string>;
}

/** Structure that compact mode folds away when it has no name and is not clickable. */
const STRUCTURAL_ROLES = new Set([
  'generic',
  'none',
  'presentation',
  'group',
  'list',
  'listitem',
  'paragraph',
  'strong',
  'emphasis',
  'code',
  'time',
  'superscript',
  'subscript',
  'insertion',
  'deletion',
  'mark',
  'term',
  'definition',
  'blockquote',
  'figure',
  'caption',
  'LabelText',
  'Section',
  'article',
  'section',
  'rowgroup',
  'directory',
]);

const BLOCK_ROLES = new Set(['paragraph', 'listitem', 'blockquote', 'article', 'section', 'figure']);

/** Non-interactive roles whose refs compact mode still prints (good roots, things to read or see). */
const REF_WORTHY_ROLES = new Set([
  'heading',
  'img',
  'iframe',
  'dialog',
  'alertdialog',
  'alert',
  'table',
  'form',
  'main',
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'region',
  'search',
  'tabpanel',
  'menu',
  'menubar',
  'tablist',
  'tree',
  'grid',
]);

const MAX_NAME_CHARS = 160;
const MAX_URL_CHARS = 120;

/** Snapshot lines for a tree (no header, no cap). */
export function renderSnapshot(nodes: ReadonlyArray<AriaNode | string>, options: RenderOptions): string[] {
  const lines: string[] = [];
  if (options.interactiveOnly) renderFlat(nodes, options, lines);
  else renderTree(nodes, 0, options, lines);
  return lines;
}

function renderFlat(nodes: ReadonlyArray<AriaNode | string>, options: RenderOptions, lines: string[]): void {
  for (const node of nodes) {
    if (typeof node === 'string') continue;
    if (isInteractive(node) && node.ref) lines.push(`- ${describe(node, options, true)}`);
    renderFlat(node.children, options, lines);
  }
}

function renderTree(
  nodes: ReadonlyArray<AriaNode | string>,
  depth: number,
  options: RenderOptions,
  lines: string[],
): void {
  const indent = '  '.repeat(depth);
  if (options.maxDepth !== undefined && depth >= options.maxDepth) {
    const hidden = [...walkNodes(nodes)].length;
    if (hidden) lines.push(`${indent}- … ${hidden} elements deeper than max_depth ${options.maxDepth}`);
    return;
  }
  let pendingText = '';
  const flushText = () => {
    const text = pendingText.trim();
    if (text) lines.push(`${indent}- ${text}`);
    pendingText = '';
  };
  nodes.forEach((node, index) => {
    if (typeof node === 'string') {
      if (options.compact && repeatsNeighbourName(node, nodes[index - 1], nodes[index + 1])) return;
      pendingText += `${pendingText ? ' ' : ''}${node}`;
      return;
    }
    if (options.compact && isFoldable(node)) {
      // Its text joins the running text; its children print at this level. A block (paragraph,
      // list item) keeps its own line so the text still reads in paragraphs.
      if (BLOCK_ROLES.has(node.role)) flushText();
      if (node.text) pendingText += `${pendingText ? ' ' : ''}${node.text}`;
      if (node.children.length) {
        flushText();
        renderTree(node.children, depth, options, lines);
      }
      if (BLOCK_ROLES.has(node.role)) flushText();
      return;
    }
    // An unnamed element Playwright gave no ref (not visible) and nothing inside: noise.
    if (options.compact && !node.ref && !node.name && !node.text && node.children.length === 0) return;
    flushText();
    const text = node.text ? `: ${node.text}` : '';
    lines.push(`${indent}- ${describe(node, options, !options.compact)}${text}`);
    renderTree(node.children, depth + 1, options, lines);
  });
  flushText();
}

function isFoldable(node: AriaNode): boolean {
  return !node.name && !node.clickable && STRUCTURAL_ROLES.has(node.role);
}

/** A label printed next to the control it names ("Remember" beside checkbox "Remember"). */
function repeatsNeighbourName(
  text: string,
  before: AriaNode | string | undefined,
  after: AriaNode | string | undefined,
) {
  const trimmed = text.trim();
  return [before, after].some(
    (node) => typeof node === 'object' && node.name !== '' && node.name === trimmed,
  );
}

/** `role "name" [props] [e12] [new]`, refs printed when the node is worth acting on or `allRefs`. */
function describe(node: AriaNode, options: RenderOptions, allRefs: boolean): string {
  let line = node.role;
  if (node.name) line += ` ${JSON.stringify(clip(node.name, MAX_NAME_CHARS))}`;
  for (const [camelKey, value] of Object.entries(node.props)) {
    if (value === false) continue;
    const key = camelKey.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    const shown = typeof value === 'string' ? JSON.stringify(clip(value, 60)) : value;
    line += value === true ? ` [${key}]` : ` [${key}=${shown}]`;
  }
  const showRef = node.ref && (allRefs || isInteractive(node) || REF_WORTHY_ROLES.has(node.role));
  if (showRef) line += ` [${node.ref}]`;
  if (node.ref && options.newRefs.has(node.ref) && showRef) line += ' [new]';
  if (options.urls && node.url) line += ` -> ${clip(node.url, MAX_URL_CHARS)}`;
  return line;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
