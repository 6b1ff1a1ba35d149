import { ExpressionError } from './expression-error.js';
import type { CompareOperator, Expression } from './expression-parser.js';

/**
 * Gives a path's value: the root (`inputs`, `steps`, `trigger`, `item`, `index`) and the segments
 * after it. Undefined when there is none (a missing field reads as null); throws when the path
 * names something the run cannot have yet.
 */
export type PathResolver = (root: string, segments: readonly (string | number)[]) => unknown;

/** Evaluate a parsed expression. Throws ExpressionError when values cannot be compared. */
export function evaluateExpression(expression: Expression, resolve: PathResolver): unknown {
  switch (expression.kind) {
    case 'literal':
      return expression.value;
    case 'path':
      return resolve(expression.root, expression.segments) ?? null;
    case 'list':
      return expression.items.map((item) => evaluateExpression(item, resolve));
    case 'not':
      return !isTruthy(evaluateExpression(expression.operand, resolve));
    case 'logical': {
      // Short-circuit: `steps.a.status == "done" and steps.a.output contains "x"` never reads a's output otherwise.
      const left = isTruthy(evaluateExpression(expression.left, resolve));
      if (expression.operator === 'and' ? !left : left) return left;
      return isTruthy(evaluateExpression(expression.right, resolve));
    }
    case 'compare':
      return compare(
        expression.operator,
        evaluateExpression(expression.left, resolve),
        evaluateExpression(expression.right, resolve),
      );
  }
}

/**
 * Follow `segments` into a value through own fields and list indexes only, so that a path can
 * never reach `constructor`, `__proto__` or other inherited members. Undefined when absent.
 */
export function readPath(value: unknown, segments: readonly (string | number)[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment))
      current = (current as Record<string, unknown>)[String(segment)];
    else return undefined;
  }
  return current;
}

/** null, false, 0, "" and [] are false; everything else is true. */
export function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

function compare(operator: CompareOperator, left: unknown, right: unknown): boolean {
  switch (operator) {
    case '==':
      return looselyEqual(left, right);
    case '!=':
      return !looselyEqual(left, right);
    case 'contains':
      return contains(left, right);
    default: {
      const [a, b] = orderable(left, right, operator);
      if (operator === '<') return a < b;
      if (operator === '<=') return a <= b;
      if (operator === '>') return a > b;
      return a >= b;
    }
  }
}

/** Agents answer in text: `"3"` compares with `3` as a number. */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

function looselyEqual(left: unknown, right: unknown): boolean {
  const a = asNumber(left);
  const b = asNumber(right);
  if (a !== undefined && b !== undefined && (typeof left === 'number' || typeof right === 'number'))
    return a === b;
  if (typeof left === 'object' && left !== null && typeof right === 'object' && right !== null)
    return JSON.stringify(left) === JSON.stringify(right);
  return left === right;
}

function orderable(left: unknown, right: unknown, operator: string): [number, number] | [string, string] {
  const a = asNumber(left);
  const b = asNumber(right);
  if (a !== undefined && b !== undefined) return [a, b];
  if (typeof left === 'string' && typeof right === 'string') return [left, right];
  throw new ExpressionError(`cannot order ${kindOf(left)} ${operator} ${kindOf(right)}`);
}

/** Text contains text (ignoring case), a list contains an element, an object a key; null contains nothing. */
function contains(haystack: unknown, needle: unknown): boolean {
  if (haystack === null) return false;
  if (typeof haystack === 'string') {
    if (typeof needle !== 'string' && typeof needle !== 'number')
      throw new ExpressionError(`text cannot contain ${kindOf(needle)}`);
    return haystack.toLowerCase().includes(String(needle).toLowerCase());
  }
  if (Array.isArray(haystack)) return haystack.some((element) => looselyEqual(element, needle));
  if (typeof haystack === 'object') return typeof needle === 'string' && Object.hasOwn(haystack, needle);
  throw new ExpressionError(`${kindOf(haystack)} cannot contain anything (use text, a list or an object)`);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `text "${value.length > 20 ? `${value.slice(0, 20)}…` : value}"`;
  return `${typeof value} ${String(value)}`;
}
