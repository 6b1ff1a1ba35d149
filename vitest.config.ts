import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const packages = ['protocol', 'testkit', 'memory', 'browser', 'host', 'agent', 'channels', 'cli'];
const source = (file: string) => fileURLToPath(new URL(`./packages/${file}`, import.meta.url));
// Tests run from source: each workspace package (and subpath export) resolves to its src/.
const alias = [
  { find: /^@openlegion\/infra\/([a-z-]+)$/, replacement: source('infra/src/$1/index.ts') },
  { find: /^@openlegion\/agent\/skills$/, replacement: source('agent/src/skills/index.ts') },
  {
    find: /^@openlegion\/agent\/squad-memory$/,
    replacement: source('agent/src/subagents/squad-memory.ts'),
  },
  { find: /^@openlegion\/host\/config$/, replacement: source('host/src/config/index.ts') },
  { find: /^@openlegion\/host\/mesh$/, replacement: source('host/src/mesh.ts') },
  { find: /^@openlegion\/host\/vault$/, replacement: source('host/src/vault/index.ts') },
  { find: /^@openlegion\/host\/kubernetes$/, replacement: source('host/src/kubernetes/index.ts') },
  {
    find: /^@openlegion\/host\/workflow-files$/,
    replacement: source('host/src/workflows/definition/workflow-file.ts'),
  },
  ...packages.map((name) => ({
    find: new RegExp(`^@openlegion/${name}$`),
    replacement: source(`${name}/src/index.ts`),
  })),
];

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['packages/*/src/**/*.int.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.e2e.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
