import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** ARCHITECTURE.md §2: which workspace packages each package may import. */
const ALLOWED: Record<string, string[]> = {
  protocol: [],
  memory: ['protocol'],
  browser: ['protocol'],
  agent: ['protocol', 'memory', 'browser'],
  host: ['protocol'],
  channels: ['protocol'],
  cli: ['protocol', 'memory', 'browser', 'agent', 'host', 'channels'],
  testkit: ['protocol'],
};

const root = path.resolve(import.meta.dirname, '../..');
const packagesDir = path.join(root, 'packages');
const packages = readdirSync(packagesDir).filter((name) =>
  statSync(path.join(packagesDir, name)).isDirectory(),
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [full] : [];
  });
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

  it.each(packages)('%s imports only what it may', (name) => {
    const allowed = new Set([...(ALLOWED[name] ?? []), name]);
    const violations = sourceFiles(path.join(packagesDir, name, 'src')).flatMap((file) =>
      importsIn(readFileSync(file, 'utf8'))
        .filter((imported) => !allowed.has(imported))
        .map((imported) => `${path.relative(root, file)} imports @openlegion/${imported}`),
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
