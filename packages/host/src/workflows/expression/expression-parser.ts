import { ExpressionError } from './expression-error.js';
import { type Token, tokenize } from './expression-lexer.js';

export type CompareOperator = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'contains';

/** The parsed form of an expression: data only, evaluated by walking it (no eval, no Function). */
export type Expression =
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'path'; root: string; segments: (string | number)[]; at: number }
  | { kind: 'list'; items: Expression[] }
  | { kind: 'not'; operand: Expression }
  | { kind: 'logical'; operator: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'compare'; operator: CompareOperator; left: Expression; right: Expression };

/** Longer expressions are refused: a condition is a line, not a program. */
export const MAX_EXPRESSION_LENGTH = 2_000;
/** Deeper nesting is refused, so that parsing and evaluation never exhaust the stack. */
export const MAX_EXPRESSION_DEPTH = 32;

const COMPARE: Record<string, CompareOperator> = {
  '==': '==',
  '!=': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  contains: 'contains',
};
const KEYWORDS = new Set(['and', 'or', 'not', 'contains', 'true', 'false', 'null']);

/**
 * Parse `inputs.depth > 1 and not (steps.check.output contains "reject")`.
 *
 * Grammar: `or := and (or|'||' and)*`, `and := not (and|'&&' not)*`, `not := (not|'!') not |
 * compare`, `compare := primary (op primary)?` with `== != < <= > >= contains`, and `primary :=
 * number | string | true | false | null | path | [list] | (or)`; a path is `name(.name|[n])*`.
 *
 * @throws ExpressionError with the offset of the problem.
 */
export function parseExpression(text: string): Expression {
  if (text.length > MAX_EXPRESSION_LENGTH)
    throw new ExpressionError(`longer than ${MAX_EXPRESSION_LENGTH} characters`, 0);
  const parser = new Parser(tokenize(text));
  const expression = parser.or(0);
  parser.expectEnd();
  return expression;
}

class Parser {
  readonly #tokens: Token[];
  #next = 0;

  constructor(tokens: Token[]) {
    this.#tokens = tokens;
  }

  or(depth: number): Expression {
    let left = this.and(depth);
    while (this.#takeWord('or') || this.#takeOp('||'))
      left = { kind: 'logical', operator: 'or', left, right: this.and(depth) };
    return left;
  }

  and(depth: number): Expression {
    let left = this.not(depth);
    while (this.#takeWord('and') || this.#takeOp('&&'))
      left = { kind: 'logical', operator: 'and', left, right: this.not(depth) };
    return left;
  }

  not(depth: number): Expression {
    if (this.#takeWord('not') || this.#takeOp('!'))
      return { kind: 'not', operand: this.not(deeper(depth, this.#peek())) };
    const left = this.#primary(depth);
    const token = this.#peek();
    const operator = token.kind === 'op' || token.kind === 'name' ? COMPARE[token.value] : undefined;
    if (!operator) return left;
    this.#next++;
    const right = this.#primary(depth);
    const after = this.#peek();
    if ((after.kind === 'op' || after.kind === 'name') && COMPARE[after.value])
      throw new ExpressionError('chain comparisons with and/or, e.g. a > 1 and a < 5', after.at);
    return { kind: 'compare', operator, left, right };
  }

  expectEnd(): void {
    const token = this.#peek();
    if (token.kind !== 'end') throw new ExpressionError(`unexpected ${describe(token)}`, token.at);
  }

  #primary(depth: number): Expression {
    const token = this.#peek();
    this.#next++;
    if (token.kind === 'number' || token.kind === 'string') return { kind: 'literal', value: token.value };
    if (token.kind === 'op' && token.value === '(') {
      const inner = this.or(deeper(depth, token));
      this.#expectOp(')');
      return inner;
    }
    if (token.kind === 'op' && token.value === '[') return this.#list(deeper(depth, token));
    if (token.kind === 'name') {
      if (token.value === 'true' || token.value === 'false')
        return { kind: 'literal', value: token.value === 'true' };
      if (token.value === 'null') return { kind: 'literal', value: null };
      if (!KEYWORDS.has(token.value)) return this.#path(token.value, token.at);
    }
    throw new ExpressionError(`expected a value, found ${describe(token)}`, token.at);
  }

  #list(depth: number): Expression {
    const items: Expression[] = [];
    if (this.#takeOp(']')) return { kind: 'list', items };
    do items.push(this.or(depth));
    while (this.#takeOp(','));
    this.#expectOp(']');
    return { kind: 'list', items };
  }

  #path(root: string, at: number): Expression {
    const segments: (string | number)[] = [];
    for (;;) {
      if (this.#takeOp('.')) {
        const part = this.#peek();
        this.#next++;
        if (part.kind === 'name') segments.push(part.value);
        else if (part.kind === 'number' && Number.isInteger(part.value) && part.value >= 0)
          segments.push(part.value);
        else throw new ExpressionError(`expected a field name after ".", found ${describe(part)}`, part.at);
      } else if (this.#takeOp('[')) {
        const index = this.#peek();
        this.#next++;
        if (index.kind === 'number' && Number.isInteger(index.value) && index.value >= 0)
          segments.push(index.value);
        else if (index.kind === 'string') segments.push(index.value);
        else
          throw new ExpressionError(`expected an index or a quoted key, found ${describe(index)}`, index.at);
        this.#expectOp(']');
      } else {
        return { kind: 'path', root, segments, at };
      }
    }
  }

  #peek(): Token {
    // The lexer always ends with an `end` token, and the parser never moves past it.
    return this.#tokens[Math.min(this.#next, this.#tokens.length - 1)] as Token;
  }

  #takeOp(value: string): boolean {
    const token = this.#peek();
    if (token.kind !== 'op' || token.value !== value) return false;
    this.#next++;
    return true;
  }

  #takeWord(value: string): boolean {
    const token = this.#peek();
    if (token.kind !== 'name' || token.value !== value) return false;
    this.#next++;
    return true;
  }

  #expectOp(value: string): void {
    const token = this.#peek();
    if (!this.#takeOp(value))
      throw new ExpressionError(`expected "${value}", found ${describe(token)}`, token.at);
  }
}

function deeper(depth: number, token: Token): number {
  if (depth + 1 > MAX_EXPRESSION_DEPTH)
    throw new ExpressionError(`nested deeper than ${MAX_EXPRESSION_DEPTH} levels`, token.at);
  return depth + 1;
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'the end';
  if (token.kind === 'string') return `"${token.value}"`;
  return `"${token.value}"`;
}
