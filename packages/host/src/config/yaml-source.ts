import { Document, isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import type { ZodError } from 'zod';

/** One validation problem, located in the file. */
export interface ConfigProblem {
  file: string;
  line: number;
  col: number;
  /** Dotted field path, e.g. `agents.researcher.model` (empty for the document root). */
  field: string;
  message: string;
}

/** A field path as zod and the validators name it: keys and list indexes. */
export type FieldPath = readonly (string | number)[];

/**
 * Alias nodes a document may expand to when turned into values (yaml's own default, made explicit):
 * nested aliases ("billion laughs") would otherwise grow a few lines into billions of nodes.
 */
const MAX_YAML_ALIAS_COUNT = 100;

/**
 * A YAML file parsed with positions kept, so that every later problem (zod's or a validator's)
 * can be pointed at the line and column of the field it is about.
 */
export class YamlSource {
  readonly file: string;
  readonly doc: Document;
  readonly #lines: LineCounter;
  /** Why the text could not become values at all (the parser threw, aliases expand too far). */
  readonly #failure: string | undefined;
  readonly #value: unknown;

  private constructor(file: string, doc: Document, lines: LineCounter, failure?: string) {
    this.file = file;
    this.doc = doc;
    this.#lines = lines;
    let value: unknown;
    if (failure === undefined && doc.errors.length === 0) {
      try {
        value = doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
      } catch (error) {
        failure = `cannot read the document: ${(error as Error).message}`;
      }
    }
    this.#failure = failure;
    this.#value = value ?? {};
  }

  /** Parse `text`; `file` is only used in messages. Syntax errors are in `syntaxProblems()`. */
  static parse(text: string, file: string): YamlSource {
    const lines = new LineCounter();
    try {
      return new YamlSource(file, parseDocument(text, { lineCounter: lines, prettyErrors: false }), lines);
    } catch (error) {
      // The parser is not meant to throw; if it does on some input, that file is invalid, not the host.
      return new YamlSource(file, new Document(), lines, `cannot parse: ${(error as Error).message}`);
    }
  }

  /**
   * The problems that keep the text from being read as values, each located: YAML syntax errors,
   * and aliases that expand beyond {@link MAX_YAML_ALIAS_COUNT} nodes. Empty when the text parsed.
   */
  syntaxProblems(): ConfigProblem[] {
    const failure = this.#failure === undefined ? [] : [{ offset: 0, message: this.#failure }];
    return [
      ...this.doc.errors.map((error) => ({
        offset: error.pos[0],
        message: error.message.split('\n')[0] ?? error.code,
      })),
      ...failure,
    ].map(({ offset, message }) => ({ file: this.file, ...this.#position(offset), field: '', message }));
  }

  /** The document as plain JavaScript values (`{}` for an empty file, or one that has syntax problems). */
  toJS(): unknown {
    return this.#value;
  }

  /** Line and column of `offset`; the first line when the parser stopped before counting any. */
  #position(offset: number): { line: number; col: number } {
    const position = this.#lines.linePos(offset);
    return position.line > 0 ? position : { line: 1, col: 1 };
  }

  /** A problem about the field at `fieldPath` (or about `key` inside it), located. */
  problem(fieldPath: FieldPath, message: string, key?: string): ConfigProblem {
    const field = key === undefined ? fieldPath : [...fieldPath, key];
    return {
      file: this.file,
      ...this.#lines.linePos(locate(this.doc, fieldPath, key)),
      field: field.join('.'),
      message,
    };
  }

  /** Every issue of a zod error as a located problem, sorted by position. */
  zodProblems(error: ZodError): ConfigProblem[] {
    const problems: ConfigProblem[] = [];
    for (const issue of error.issues) {
      const issuePath = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
      if (issue.code === 'unrecognized_keys') {
        // Reported once per unknown key, pointing at the key itself.
        for (const key of issue.keys) problems.push(this.problem(issuePath, `unknown field "${key}"`, key));
      } else if (issue.code === 'invalid_key') {
        // A bad record key (e.g. an agent name): point at the key and say what is wrong with it.
        const key = String(issuePath.at(-1));
        const located = this.problem(issuePath.slice(0, -1), issue.issues[0]?.message ?? issue.message, key);
        problems.push({ ...located, field: issuePath.join('.') });
      } else {
        problems.push(this.problem(issuePath, issue.message));
      }
    }
    return sortProblems(problems);
  }
}

/** `file:line:col field: message`, the form every config error is printed in. */
export function formatConfigProblem(problem: ConfigProblem): string {
  const where = `${problem.file}:${problem.line}:${problem.col}`;
  return problem.field ? `${where} ${problem.field}: ${problem.message}` : `${where} ${problem.message}`;
}

/** `<file>: N problems` and one located line per problem: the message of every config error. */
export function problemsMessage(file: string, problems: readonly ConfigProblem[]): string {
  const noun = problems.length === 1 ? 'problem' : 'problems';
  return `${file}: ${problems.length} ${noun}\n${problems.map(formatConfigProblem).join('\n')}`;
}

/** Problems in file order. */
export function sortProblems(problems: ConfigProblem[]): ConfigProblem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

/** Offset of the deepest node that exists along `fieldPath` (or of `key` inside it). */
function locate(doc: Document, fieldPath: FieldPath, key: string | undefined): number {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (const part of fieldPath) {
    const next = childNode(node, part);
    if (next === undefined) return offset;
    node = next.value;
    offset = rangeStart(next.key) ?? rangeStart(next.value) ?? offset;
  }
  if (key !== undefined) {
    const pair = childNode(node, key);
    if (pair) return rangeStart(pair.key) ?? offset;
  } else {
    // Point at the value itself when there is one (e.g. `model: bogus` → the value).
    offset = rangeStart(node) ?? offset;
  }
  return offset;
}

function childNode(node: unknown, part: string | number): { key: unknown; value: unknown } | undefined {
  if (isMap(node)) {
    const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(part));
    return pair ? { key: pair.key, value: pair.value } : undefined;
  }
  if (
    node &&
    typeof node === 'object' &&
    'items' in node &&
    Array.isArray(node.items) &&
    typeof part === 'number'
  ) {
    const item: unknown = node.items[part];
    return item === undefined ? undefined : { key: undefined, value: item };
  }
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
