import { describe, expect, it } from 'vitest';
import {
  ExpressionError,
  evaluateExpression,
  expressionPaths,
  MAX_EXPRESSION_DEPTH,
  type PathResolver,
  parseExpression,
  readPath,
} from './index.js';

const values: Record<string, unknown> = {
  inputs: { depth: 2, topic: 'Solar Power', tags: ['energy', 'climate'], strict: false },
  steps: {
    check: { output: 'Verdict: APPROVED with notes', status: 'done' },
    count: { output: '7', status: 'done' },
    json: { output: { verdict: 'ok', claims: [{ id: 1 }] }, status: 'done' },
    skipped: { output: null, status: 'skipped' },
  },
};
const resolve: PathResolver = (root, segments) => readPath(values, [root, ...segments]);
const run = (text: string) => evaluateExpression(parseExpression(text), resolve);

describe('the expression language', () => {
  it.each([
    ['inputs.depth > 1', true],
    ['inputs.depth >= 3', false],
    ['inputs.topic == "Solar Power"', true],
    ["inputs.topic != 'Solar Power'", false],
    ['steps.check.output contains "approved"', true],
    ['inputs.tags contains "climate"', true],
    ['steps.json.output contains "verdict"', true],
    ['steps.json.output.verdict == "ok" and steps.json.output.claims[0].id == 1', true],
    ['steps.count.output > 5', true],
    ['steps.count.output == 7', true],
    ['not inputs.strict', true],
    ['!(inputs.depth > 1) || inputs.strict', false],
    ['inputs.depth > 5 or steps.skipped.status == "skipped"', true],
    ['steps.skipped.output contains "x"', false],
    ['steps.skipped.output == null', true],
    ['inputs.missing == null', true],
    ['["a", "b"] contains "b"', true],
    ['-1 < 0 && 0.5 <= 0.5', true],
  ])('%s → %s', (text, expected) => {
    expect(run(text)).toBe(expected);
  });

  it('does not read the right side of a short-circuited and', () => {
    const read: string[] = [];
    const expression = parseExpression('false and steps.x.output == 1');
    evaluateExpression(expression, (root, segments) => {
      read.push([root, ...segments].join('.'));
      throw new ExpressionError('not yet');
    });
    expect(read).toEqual([]);
  });

  it.each([
    ['inputs.depth = 2', /unexpected "=" \(compare with ==\)/],
    ['inputs.depth >', /expected a value, found the end/],
    ['(inputs.depth > 1', /expected "\)"/],
    ['"open', /a string is not closed/],
    ['1 < 2 < 3', /chain comparisons with and\/or/],
    ['inputs.depth > 1 steps', /unexpected "steps"/],
    ['inputs. > 1', /expected a field name/],
    ['and', /expected a value, found "and"/],
  ])('refuses %s, saying where', (text, message) => {
    expect(() => parseExpression(text)).toThrow(message);
    try {
      parseExpression(text);
    } catch (error) {
      expect((error as ExpressionError).at).toBeTypeOf('number');
    }
  });

  it('refuses nesting deep enough to exhaust the stack, and overlong text', () => {
    const deep = `${'('.repeat(MAX_EXPRESSION_DEPTH + 1)}1${')'.repeat(MAX_EXPRESSION_DEPTH + 1)}`;
    expect(() => parseExpression(deep)).toThrow(/nested deeper than 32 levels/);
    expect(() => parseExpression(`${'not '.repeat(5_000)}true`)).toThrow(/longer than 2000 characters/);
    expect(() => parseExpression(`${'not '.repeat(40)}true`)).toThrow(/nested deeper/);
  });

  it('throws an ExpressionError, not a TypeError, when values cannot be compared', () => {
    expect(() => run('inputs.tags > 1')).toThrow(ExpressionError);
    expect(() => run('inputs.tags > 1')).toThrow('cannot order a list > number 1');
    expect(() => run('inputs.depth contains 1')).toThrow(/number 2 cannot contain anything/);
    expect(() => run('inputs.topic contains inputs.tags')).toThrow(/text cannot contain a list/);
  });

  it('lists the paths an expression reads', () => {
    const paths = expressionPaths(parseExpression('steps.a.output contains inputs.x or not item.name'));
    expect(paths).toEqual([
      { root: 'steps', segments: ['a', 'output'] },
      { root: 'inputs', segments: ['x'] },
      { root: 'item', segments: ['name'] },
    ]);
  });

  it('never evaluates code: a would-be function call is a parse error', () => {
    expect(() => parseExpression('constructor.constructor("return process")()')).toThrow(ExpressionError);
    expect(run('inputs.constructor == null')).toBe(true);
  });
});
