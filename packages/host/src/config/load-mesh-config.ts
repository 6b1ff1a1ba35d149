import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { deepFreeze, type MeshConfig, meshConfigSchema, OpenLegionError } from '@openlegion/protocol';
import { type Document, isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import type { ZodError } from 'zod';
import { parseSchedule } from '../cron/schedule.js';

/** One validation problem, located in the file. */
export interface ConfigProblem {
  file: string;
  line: number;
  col: number;
  /** Dotted field path, e.g. `agents.researcher.model` (empty for the document root). */
  field: string;
  message: string;
}

export interface LoadedMeshConfig {
  config: MeshConfig;
  /** Absolute path of the file read. */
  file: string;
  /** Absolute `mesh.data_dir`, resolved against the file's folder. */
  dataDir: string;
  /** Resolve a path written in the file (relative to the file's folder). */
  resolvePath: (relative: string) => string;
}

/** `file:line:col field: message`, the form every config error is printed in. */
export function formatConfigProblem(problem: ConfigProblem): string {
  const where = `${problem.file}:${problem.line}:${problem.col}`;
  return problem.field ? `${where} ${problem.field}: ${problem.message}` : `${where} ${problem.message}`;
}

/**
 * Read, parse and validate a mesh.yaml. Every problem is collected (not just the first) and thrown
 * as one `CONFIG_INVALID` error whose `details.problems` locate each one.
 */
export async function loadMeshConfig(file: string): Promise<LoadedMeshConfig> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (cause) {
    throw new OpenLegionError('CONFIG_NOT_FOUND', `cannot read ${file}: ${(cause as Error).message}`, {
      cause,
    });
  }
  const config = parseMeshConfig(text, file);
  const dir = path.dirname(absolute);
  const resolvePath = (relative: string) => path.resolve(dir, relative);
  return { config, file: absolute, dataDir: resolvePath(config.mesh.data_dir), resolvePath };
}

/** Parse and validate mesh.yaml text; `file` is only used in messages. */
export function parseMeshConfig(text: string, file = 'mesh.yaml'): MeshConfig {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const syntaxProblems: ConfigProblem[] = doc.errors.map((error) => {
    const pos = lineCounter.linePos(error.pos[0]);
    return {
      file,
      line: pos.line,
      col: pos.col,
      field: '',
      message: error.message.split('\n')[0] ?? error.code,
    };
  });
  if (syntaxProblems.length > 0) throw configError(file, syntaxProblems);

  const result = meshConfigSchema.safeParse(doc.toJS() ?? {});
  if (!result.success) throw configError(file, zodProblems(result.error, doc, lineCounter, file));
  const schedules = scheduleProblems(result.data).map(({ field, message }) => ({
    file,
    ...lineCounter.linePos(locate(doc, field, undefined)),
    field: field.join('.'),
    message,
  }));
  if (schedules.length > 0) throw configError(file, schedules);
  // Frozen once validated: no module can change the config others have read.
  return deepFreeze(result.data);
}

/** Cron schedules zod cannot judge (it has no cron parser): each bad one with its field path. */
function scheduleProblems(config: MeshConfig): { field: (string | number)[]; message: string }[] {
  return Object.entries(config.agents).flatMap(([agent, agentConfig]) =>
    agentConfig.cron.flatMap((entry, index) => {
      try {
        parseSchedule(entry.schedule, entry.timezone);
        return [];
      } catch (error) {
        return [{ field: ['agents', agent, 'cron', index, 'schedule'], message: (error as Error).message }];
      }
    }),
  );
}

function configError(file: string, problems: ConfigProblem[]): OpenLegionError {
  const lines = problems.map(formatConfigProblem);
  const noun = problems.length === 1 ? 'problem' : 'problems';
  return new OpenLegionError('CONFIG_INVALID', `${file}: ${problems.length} ${noun}\n${lines.join('\n')}`, {
    details: { problems },
  });
}

function zodProblems(
  error: ZodError,
  doc: Document,
  lineCounter: LineCounter,
  file: string,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of error.issues) {
    const issuePath = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
    if (issue.code === 'unrecognized_keys') {
      // Reported once per unknown key, pointing at the key itself.
      for (const key of issue.keys) {
        const pos = lineCounter.linePos(locate(doc, issuePath, key));
        problems.push({
          file,
          ...pos,
          field: [...issuePath, key].join('.'),
          message: `unknown field "${key}"`,
        });
      }
    } else if (issue.code === 'invalid_key') {
      // A bad record key (e.g. an agent name): point at the key and say what is wrong with it.
      const key = String(issuePath.at(-1));
      const pos = lineCounter.linePos(locate(doc, issuePath.slice(0, -1), key));
      const message = issue.issues[0]?.message ?? issue.message;
      problems.push({ file, ...pos, field: issuePath.join('.'), message });
    } else {
      const pos = lineCounter.linePos(locate(doc, issuePath, undefined));
      problems.push({ file, ...pos, field: issuePath.join('.'), message: issue.message });
    }
  }
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

/** Offset of the deepest node that exists along `fieldPath` (or of `key` inside it). */
function locate(doc: Document, fieldPath: (string | number)[], key: string | undefined): number {
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
