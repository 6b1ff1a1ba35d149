import type { Expression } from './expression-parser.js';

/** A value an expression or template reads: `steps.a.output` is root `steps`, segments `a, output`. */
export interface PathReference {
  root: string;
  segments: readonly (string | number)[];
}

/** Every path an expression reads, for the validator to check against the workflow. */
export function expressionPaths(expression: Expression): PathReference[] {
  switch (expression.kind) {
    case 'literal':
      return [];
    case 'path':
      return [{ root: expression.root, segments: expression.segments }];
    case 'list':
      return expression.items.flatMap(expressionPaths);
    case 'not':
      return expressionPaths(expression.operand);
    case 'logical':
    case 'compare':
      return [...expressionPaths(expression.left), ...expressionPaths(expression.right)];
  }
}
