import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The walls inside packages/host (ARCHITECTURE.md §2, docs/architecture.md "Inside the host"):
 * the kernel folders hold what every feature builds on and import no feature; a feature folder
 * imports the kernel and other features only through their `index.ts`; no circle between folders
 * or between files. Source files only: a test may assemble the whole host to test one part of it.
 */
const KERNEL = new Set(['features', 'auth', 'config', 'secrets', 'registry', 'server', 'permissions']);

const hostSource = path.resolve(import.meta.dirname, '../../packages/host/src');

/** One relative import: the file that writes it and the file it lands in, both relative to src/. */
interface ImportEdge {
  from: string;
  to: string;
}

/** Every non-test .ts file below `dir`, relative to `root`. */
function sourceFiles(dir: string, root: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full, root);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path.relative(root, full)] : [];
  });
}

/** The relative imports (static, dynamic, type, re-export) a file's text makes, as src/ paths. */
function importsOf(file: string, text: string): ImportEdge[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)]
    .map((match) => path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] ?? '')))
    .filter((target) => !target.startsWith('..'))
    .map((target) => ({ from: file, to: target.replace(/\.js$/, '.ts') }));
}

/** The top folder a src/ path lives in; files directly in src/ are the composition root. */
function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 1 ? (parts[0] ?? '') : '(root)';
}

/** The imports that cross a wall, each as a sentence naming both files. */
function wallBreaks(edges: readonly ImportEdge[]): string[] {
  return edges.flatMap(({ from, to }) => {
    const source = folderOf(from);
    const target = folderOf(to);
    if (source === target) return [];
    if (KERNEL.has(source) && !KERNEL.has(target))
      return [`${from} imports ${to}: the kernel folder ${source}/ imports the feature ${target}/`];
    if (to !== `${target}/index.ts`)
      return [`${from} imports ${to}: another folder is reached through its index.ts only`];
    return [];
  });
}

/** The first circle in a directed graph, as the chain of nodes that closes it, or undefined. */
function firstCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const chain: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    chain.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...chain.slice(chain.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    chain.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

function graphOf(edges: readonly ImportEdge[], node: (file: string) => string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const { from, to } of edges) {
    const [a, b] = [node(from), node(to)];
    if (a === b) continue;
    const targets = graph.get(a) ?? [];
    if (!targets.includes(b)) targets.push(b);
    graph.set(a, targets);
  }
  return graph;
}

const edges = sourceFiles(hostSource, hostSource).flatMap((file) =>
  importsOf(file, readFileSync(path.join(hostSource, file), 'utf8')),
);

describe('the walls inside the host', () => {
  it('names only folders that exist as kernel folders', () => {
    const folders = new Set(edges.map(({ from }) => folderOf(from)));
    expect([...KERNEL].filter((folder) => !folders.has(folder))).toEqual([]);
  });

  it('keeps the kernel free of features, and features behind their index.ts', () => {
    expect(wallBreaks(edges)).toEqual([]);
  });

  it('has no circle between folders', () => {
    expect(firstCircle(graphOf(edges, folderOf))?.join(' -> ')).toBeUndefined();
  });

  it('has no circle between files', () => {
    expect(firstCircle(graphOf(edges, (file) => file))?.join(' -> ')).toBeUndefined();
  });

  it('keeps mesh-features.ts a list: it imports feature factories only and constructs nothing', () => {
    // Wiring between features goes through their declared needs, not through objects made here.
    const text = readFileSync(path.join(hostSource, 'mesh-features.ts'), 'utf8');
    const values = [...text.matchAll(/^import\s+\{([^}]*)\}\s+from\s+'\.\/[^']+'/gm)].flatMap((match) =>
      (match[1] ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '' && !name.startsWith('type ')),
    );
    expect(values.length).toBeGreaterThan(0);
    expect(values.filter((name) => !name.endsWith('Feature'))).toEqual([]);
    expect(text.match(/\bnew\s+[A-Z]\w*/g) ?? []).toEqual([]);
  });

  it('names the chain of a circle it finds', () => {
    const circle = graphOf(
      [
        { from: 'llm/index.ts', to: 'llm/llm-feature.ts' },
        { from: 'llm/llm-feature.ts', to: 'llm/llm-routes.ts' },
        { from: 'llm/llm-routes.ts', to: 'llm/index.ts' },
      ],
      (file) => file,
    );
    expect(firstCircle(circle)?.join(' -> ')).toBe(
      'llm/index.ts -> llm/llm-feature.ts -> llm/llm-routes.ts -> llm/index.ts',
    );
  });

  it('sees a kernel folder importing a feature, and a reach past an index.ts', () => {
    expect(
      wallBreaks([
        { from: 'config/index.ts', to: 'workflows/definition/workflow-file.ts' },
        { from: 'costs/cost-meter.ts', to: 'llm/llm-answer.ts' },
        { from: 'costs/cost-meter.ts', to: 'server/index.ts' },
        { from: 'mesh-host.ts', to: 'lanes/index.ts' },
      ]),
    ).toEqual([
      'config/index.ts imports workflows/definition/workflow-file.ts: the kernel folder config/ imports the feature workflows/',
      'costs/cost-meter.ts imports llm/llm-answer.ts: another folder is reached through its index.ts only',
    ]);
  });

  it('reads every form of relative import', () => {
    const text = [
      "import { a } from '../server/index.js';",
      "import type { B } from './b.js';",
      "export { c } from '../config/index.js';",
      "const d = await import('../lanes/index.js');",
    ].join('\n');
    expect(importsOf('llm/x.ts', text).map(({ to }) => to)).toEqual([
      'server/index.ts',
      'llm/b.ts',
      'config/index.ts',
      'lanes/index.ts',
    ]);
  });
});
