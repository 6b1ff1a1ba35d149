import { ExpressionError } from './expression-error.js';

export type Token =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'name'; value: string; at: number }
  | { kind: 'op'; value: string; at: number }
  | { kind: 'end'; at: number };

/** Longest first, so that `<=` is not read as `<` then `=`. */
const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '[', ']', '.', ','];
const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_-]/;
const DIGIT = /[0-9]/;

/** Split an expression into tokens; `at` is each token's offset, for messages. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at] ?? '';
    if (/\s/.test(char)) {
      at++;
      continue;
    }
    if (char === '"' || char === "'") {
      const { value, end } = readString(text, at);
      tokens.push({ kind: 'string', value, at });
      at = end;
      continue;
    }
    const startsNumber = DIGIT.test(char) || (char === '-' && DIGIT.test(text[at + 1] ?? ''));
    if (startsNumber) {
      const match = /^-?\d+(\.\d+)?/.exec(text.slice(at));
      const literal = match?.[0] ?? char;
      tokens.push({ kind: 'number', value: Number(literal), at });
      at += literal.length;
      continue;
    }
    if (NAME_START.test(char)) {
      let end = at + 1;
      while (end < text.length && NAME_PART.test(text[end] ?? '')) end++;
      tokens.push({ kind: 'name', value: text.slice(at, end), at });
      at = end;
      continue;
    }
    const operator = OPERATORS.find((candidate) => text.startsWith(candidate, at));
    if (!operator) {
      const hint = char === '=' ? ' (compare with ==)' : '';
      throw new ExpressionError(`unexpected "${char}"${hint}`, at);
    }
    tokens.push({ kind: 'op', value: operator, at });
    at += operator.length;
  }
  tokens.push({ kind: 'end', at: text.length });
  return tokens;
}

/** A quoted string with `\` escaping the quote, a backslash, or n/t. */
function readString(text: string, start: number): { value: string; end: number } {
  const quote = text[start];
  let value = '';
  for (let at = start + 1; at < text.length; at++) {
    const char = text[at];
    if (char === quote) return { value, end: at + 1 };
    if (char === '\\') {
      const next = text[++at] ?? '';
      value += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      continue;
    }
    value += char;
  }
  throw new ExpressionError('a string is not closed', start);
}
