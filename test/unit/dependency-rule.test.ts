import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** ARCHITECTURE.md §2: which workspace packages each package may import. */
const ALLOWED: Record<string, string[]> = {
  protocol: [],
  infra: ['protocol'],
  memory: ['protocol', 'infra'],
  browser: ['protocol', 'infra'],
  agent: ['protocol', 'infra', 'memory', 'browser'],
  host: ['protocol', 'infra', 'memory'],
  channels: ['protocol', 'infra'],
  cli: ['protocol', 'infra', 'memory', 'browser', 'agent', 'host', 'channels', 'testkit'],
  testkit: ['protocol', 'infra'],
};
/** Tests may also use testkit's loopback servers (a dev dependency). */
const ALLOWED_IN_TESTS = ['testkit'];

const root = path.resolve(import.meta.dirname, '../..');
const packagesDir = path.join(root, 'packages');
const packages = readdirSync(packagesDir).filter((name) =>
  statSync(path.join(packagesDir, name)).isDirectory(),
);

/** Every .ts file below `dir` (dist and node_modules aside). */
function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist'].includes(entry.name) ? [] : typeScriptFiles(full);
    return /\.ts$/.test(entry.name) ? [full] : [];
  });
}

const isTest = (file: string) => /\.test\.ts$/.test(file) || file.includes(`${path.sep}test${path.sep}`);

/** Packages other than `owner` that relative imports in `text` (of `file`) land in: a back door. */
function relativeImportsIntoOtherPackages(text: string, file: string, owner: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)]
    .map((match) => path.resolve(path.dirname(file), match[1] ?? ''))
    .filter((target) => target.startsWith(packagesDir + path.sep))
    .map((target) => path.relative(packagesDir, target).split(path.sep)[0] ?? '')
    .filter((target) => target !== owner);
}

/** Workspace packages a source text imports (static, dynamic, type and side-effect imports). */
function importsIn(text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]@openlegion\/([a-z-]+)/g)].map(
    (match) => match[1] ?? '',
  );
}

describe('the dependency rule', () => {
  it('knows every package in packages/', () => {
    expect(packages.filter((name) => !(name in ALLOWED))).toEqual([]);
  });

  it.each(packages)('%s imports only what it may, in source and tests', (name) => {
    const allowed = new Set([...(ALLOWED[name] ?? []), name]);
    const violations = typeScriptFiles(path.join(packagesDir, name)).flatMap((file) => {
      const allowedHere = isTest(file) ? new Set([...allowed, ...ALLOWED_IN_TESTS]) : allowed;
      return importsIn(readFileSync(file, 'utf8'))
        .filter((imported) => !allowedHere.has(imported))
        .map((imported) => `${path.relative(root, file)} imports @openlegion/${imported}`);
    });
    expect(violations).toEqual([]);
  });

  it.each(packages)('%s reaches no other package through a relative path', (name) => {
    const violations = typeScriptFiles(path.join(packagesDir, name)).flatMap((file) =>
      relativeImportsIntoOtherPackages(readFileSync(file, 'utf8'), file, name).map(
        (target) => `${path.relative(root, file)} imports packages/${target} by a relative path`,
      ),
    );
    expect(violations).toEqual([]);
  });

  it.each(packages)('%s declares only allowed workspace dependencies', (name) => {
    const manifest = JSON.parse(readFileSync(path.join(packagesDir, name, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const declared = Object.keys(manifest.dependencies ?? {})
      .filter((dep) => dep.startsWith('@openlegion/'))
      .map((dep) => dep.slice('@openlegion/'.length));
    expect(declared.filter((dep) => !(ALLOWED[name] ?? []).includes(dep))).toEqual([]);
  });

  it('sees a relative path into another package, and not one within the same package', () => {
    const file = path.join(packagesDir, 'host', 'src', 'fleet', 'probe.test.ts');
    const text = [
      "import { x } from '../../../agent/src/main.js';",
      "import { y } from '../../test/fake-mesh-host.js';",
      "const z = await import('../../../testkit/dist/fake-llm-bin.js');",
    ].join('\n');
    expect(relativeImportsIntoOtherPackages(text, file, 'host')).toEqual(['agent', 'testkit']);
  });

  it('sees every form of import', () => {
    const text = [
      "import { x } from '@openlegion/agent';",
      "import type { Y } from '@openlegion/memory/sub';",
      "const z = await import('@openlegion/browser');",
      "import '@openlegion/channels';",
    ].join('\n');
    expect(importsIn(text)).toEqual(['agent', 'memory', 'browser', 'channels']);
  });
});
