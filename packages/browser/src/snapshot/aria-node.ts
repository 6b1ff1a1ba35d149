import type { RefRegistry } from './ref-registry.js';

/** A box in CSS pixels, relative to the frame's viewport. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One element of a snapshot, with our ref (when Playwright gave it one). */
export interface AriaNode {
  role: string;
  name: string;
  /** Our ref (`e12`), stable while the element lives. */
  ref?: string;
  /** Playwright showed a pointer cursor: something clickable even if its role says not. */
  clickable: boolean;
  box?: Box;
  url?: string;
  /** Text of an element whose only child is text. */
  text?: string;
  /** States and values: checked, disabled, expanded, level, pressed, selected, placeholder, … */
  props: Record<string, string | number | boolean>;
  children: Array<AriaNode | string>;
}

/** Roles a model acts on; every one of them must stay addressable in every snapshot mode. */
export const INTERACTIVE_ROLES: ReadonlySet<string> = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'tab',
  'switch',
  'slider',
  'spinbutton',
  'treeitem',
]);

/** Whether the model may want to act on this node. */
export function isInteractive(node: AriaNode): boolean {
  return INTERACTIVE_ROLES.has(node.role) || node.clickable;
}

const OWN_KEYS = new Set(['role', 'name', 'ref', 'cursor', 'box', 'url', 'text', 'children', 'active']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Turns Playwright's `ariaSnapshotJSON({ mode: 'ai' })` into nodes with our refs, registering each
 * ref for `tabId`. Unexpected shapes are skipped rather than trusted.
 */
export function toAriaNodes(json: unknown, tabId: number, refs: RefRegistry, seen: Set<string>): AriaNode[] {
  const list = Array.isArray(json) ? (json as Json[]) : [json as Json];
  return list.flatMap((item) => {
    const node = toNode(item, tabId, refs, seen);
    return node ? [node] : [];
  });
}

function toNode(item: Json, tabId: number, refs: RefRegistry, seen: Set<string>): AriaNode | undefined {
  if (item === null || typeof item !== 'object' || Array.isArray(item) || typeof item.role !== 'string') {
    return undefined;
  }
  const name = typeof item.name === 'string' ? item.name : '';
  const node: AriaNode = {
    role: item.role,
    name,
    clickable: item.cursor === 'pointer',
    props: {},
    children: [],
  };
  if (typeof item.ref === 'string') {
    node.ref = refs.refFor(tabId, item.ref, item.role, name);
    seen.add(node.ref);
  }
  if (isBox(item.box)) node.box = item.box;
  if (typeof item.url === 'string') node.url = item.url;
  if (typeof item.text === 'string') node.text = item.text;
  for (const [key, value] of Object.entries(item)) {
    if (OWN_KEYS.has(key)) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      node.props[key] = value;
    }
  }
  if (Array.isArray(item.children)) {
    for (const child of item.children) {
      if (typeof child === 'string') node.children.push(child);
      else {
        const childNode = toNode(child, tabId, refs, seen);
        if (childNode) node.children.push(childNode);
      }
    }
  }
  return node;
}

function isBox(value: Json | undefined): value is { x: number; y: number; width: number; height: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof value.x === 'number' &&
    typeof value.y === 'number' &&
    typeof value.width === 'number' &&
    typeof value.height === 'number'
  );
}

/** Depth-first walk over element nodes. */
export function* walkNodes(nodes: ReadonlyArray<AriaNode | string>): Generator<AriaNode> {
  for (const node of nodes) {
    if (typeof node === 'string') continue;
    yield node;
    yield* walkNodes(node.children);
  }
}

/** The node with this ref in a tree. */
export function findByRef(nodes: ReadonlyArray<AriaNode | string>, ref: string): AriaNode | undefined {
  for (const node of walkNodes(nodes)) if (node.ref === ref) return node;
  return undefined;
}
