export { ExpressionError } from './expression-error.js';
export { evaluateExpression, isTruthy, type PathResolver, readPath } from './expression-evaluator.js';
export {
  type Expression,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LENGTH,
  parseExpression,
} from './expression-parser.js';
export { expressionPaths, type PathReference } from './expression-paths.js';
export { asText, parseTemplate, renderTemplate, type TemplatePart } from './template.js';
