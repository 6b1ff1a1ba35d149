import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAgentEnv } from '@openlegion/agent';
import { OpenLegionError } from '@openlegion/protocol';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const hostSource = path.join(root, 'packages/host/src');

/** The backticked variable names of the "Env" bullet of docs/architecture.md's agent contract. */
function documentedAgentEnv(): string[] {
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const section = doc.split('\n## Agent process contract\n')[1]?.split('\n## ')[0] ?? '';
  const bullet = section.split('\n- ').find((item) => item.replace(/^- /, '').startsWith('Env'));
  if (bullet === undefined)
    throw new Error('docs/architecture.md has no "- Env" bullet under "Agent process contract"');
  return [
    ...new Set([...bullet.matchAll(/`([A-Z][A-Z0-9_]*|[a-z]+_proxy)`/g)].map((match) => match[1] ?? '')),
  ];
}

/** Every non-test .ts file below `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const propertyName = (node: ts.ObjectLiteralElementLike): string | undefined =>
  node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) ? node.name.text : undefined;

/** The keys written in an object literal (spreads aside: they are the other places this reads). */
const keysOf = (literal: ts.ObjectLiteralExpression): string[] =>
  literal.properties.flatMap((property) => propertyName(property) ?? []);

/**
 * Where the host writes an agent's environment, read from its source: each object literal given as
 * `env: {...}` (the launch and the process runtime) and each one `agentEnv` returns (the egress
 * proxy's variables). Reading the source finds a variable added in any of them, wherever it moves.
 */
function hostWrittenAgentEnv(): { file: string; names: string[] }[] {
  const found: { file: string; names: string[] }[] = [];
  for (const file of sourceFiles(hostSource)) {
    const text = readFileSync(file, 'utf8');
    if (!/\benv\b|agentEnv/.test(text)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const names: string[] = [];
    const visit = (node: ts.Node, inAgentEnv: boolean): void => {
      if (
        ts.isPropertyAssignment(node) &&
        propertyName(node) === 'env' &&
        ts.isObjectLiteralExpression(node.initializer)
      )
        names.push(...keysOf(node.initializer));
      const namesAgentEnv =
        (ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node)) &&
        node.name?.getText() === 'agentEnv';
      if (
        inAgentEnv &&
        ts.isReturnStatement(node) &&
        node.expression &&
        ts.isObjectLiteralExpression(node.expression)
      )
        names.push(...keysOf(node.expression));
      ts.forEachChild(node, (child) => visit(child, inAgentEnv || namesAgentEnv));
    };
    visit(source, false);
    if (names.length > 0) found.push({ file: path.relative(root, file), names });
  }
  return found;
}

/** The variables the agent's env schema reads: all of them come back, defaulted when unset. */
function agentReadEnv(): string[] {
  return Object.keys(parseAgentEnv({ AGENT_ID: 'a', MESH_URL: 'http://127.0.0.1:8420', MESH_TOKEN: 't' }));
}

/** The variables the agent cannot start without: those its refusal of an empty environment names. */
function agentRequiredEnv(): string[] {
  try {
    parseAgentEnv({});
  } catch (error) {
    const details = error instanceof OpenLegionError ? error.details : undefined;
    if (details && typeof details === 'object' && 'variables' in details && Array.isArray(details.variables))
      return details.variables.map(String);
    throw error;
  }
  return [];
}

describe('docs/architecture.md: the agent process contract', () => {
  const written = hostWrittenAgentEnv();
  const writtenNames = [...new Set(written.flatMap((entry) => entry.names))];

  it('finds where the host writes an agent environment (launch, egress proxy, process runtime)', () => {
    expect(written.map((entry) => entry.file).sort()).toEqual([
      'packages/host/src/egress/egress-feature.ts',
      'packages/host/src/fleet/agent-launch.ts',
      'packages/host/src/fleet/process-runtime.ts',
    ]);
  });

  it('names exactly the variables the host sets and the agent reads', () => {
    const expected = [...new Set([...writtenNames, ...agentReadEnv()])].sort();
    expect(documentedAgentEnv().sort()).toEqual(expected);
  });

  it('has the host set every variable the agent requires', () => {
    const required = agentRequiredEnv();
    expect(required.sort()).toEqual(['AGENT_ID', 'MESH_TOKEN', 'MESH_URL']);
    expect(required.filter((name) => !writtenNames.includes(name))).toEqual([]);
  });
});

describe('README.md and packages/host/README.md: what is where', () => {
  const folders = (dir: string) =>
    readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();

  it('has a row for every package in the "What is where" table', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const rows = [...readme.matchAll(/^\| `packages\/([a-z-]+)` \|/gm)].map((match) => match[1]);
    expect(rows.sort()).toEqual(folders(path.join(root, 'packages')));
  });

  it('names every folder of packages/host/src, and no folder that does not exist', () => {
    const readme = readFileSync(path.join(root, 'packages/host/README.md'), 'utf8');
    const named = [...new Set([...readme.matchAll(/`([a-z-]+)\/`/g)].map((match) => match[1] ?? ''))];
    expect(named.sort()).toEqual(folders(hostSource));
  });
});
