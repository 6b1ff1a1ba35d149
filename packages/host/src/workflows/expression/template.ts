import { ExpressionError } from './expression-error.js';
import type { PathResolver } from './expression-evaluator.js';
import { parseExpression } from './expression-parser.js';
import type { PathReference } from './expression-paths.js';

/** A piece of a task text: literal text, a value by path (`${steps.a.output}`), or a blackboard entry. */
export type TemplatePart =
  | { kind: 'text'; text: string }
  | ({ kind: 'path'; at: number } & PathReference)
  | { kind: 'blackboard'; key: string; at: number };

const BLACKBOARD_PREFIX = 'blackboard:';

/**
 * Parse `Write about ${inputs.topic} using ${steps.research.output} and ${blackboard:style/guide}`.
 * `$${` writes a literal `${`.
 *
 * @throws ExpressionError at the offset of a placeholder that is not closed or not a path.
 */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  let at = 0;
  while (at < text.length) {
    if (text.startsWith('$${', at)) {
      literal += '${';
      at += 3;
      continue;
    }
    if (!text.startsWith('${', at)) {
      literal += text[at];
      at++;
      continue;
    }
    const close = text.indexOf('}', at + 2);
    if (close === -1) throw new ExpressionError('"${" is not closed with "}"', at);
    if (literal) parts.push({ kind: 'text', text: literal });
    literal = '';
    parts.push(placeholder(text.slice(at + 2, close).trim(), at));
    at = close + 1;
  }
  if (literal) parts.push({ kind: 'text', text: literal });
  return parts;
}

function placeholder(inner: string, at: number): TemplatePart {
  if (inner.startsWith(BLACKBOARD_PREFIX)) {
    const key = inner.slice(BLACKBOARD_PREFIX.length).trim();
    if (!key) throw new ExpressionError('${blackboard:} needs a key', at);
    return { kind: 'blackboard', key, at };
  }
  let parsed: ReturnType<typeof parseExpression>;
  try {
    parsed = parseExpression(inner);
  } catch (error) {
    throw new ExpressionError(`in \${${inner}}: ${(error as Error).message}`, at);
  }
  if (parsed.kind !== 'path')
    throw new ExpressionError(`\${${inner}} is not a value path (e.g. \${steps.a.output})`, at);
  return { kind: 'path', root: parsed.root, segments: parsed.segments, at };
}

/** Fill a parsed template in. Text is inserted as is; null as nothing; lists and objects as JSON. */
export function renderTemplate(
  parts: readonly TemplatePart[],
  resolve: PathResolver,
  blackboard: (key: string) => unknown,
): string {
  return parts
    .map((part) => {
      if (part.kind === 'text') return part.text;
      return asText(part.kind === 'path' ? resolve(part.root, part.segments) : blackboard(part.key));
    })
    .join('');
}

/** How a value reads in a task text. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value, null, 2);
}
