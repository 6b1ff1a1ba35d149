import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where `pnpm build` puts the built dashboard (Vite, from packages/host/ui): `dist/ui` of the host
 * package, the same path from src/dashboard (tests) and dist/dashboard (the built host). The CLI's
 * bundle writes the real path in (packages/cli/scripts/bundle.mjs), as its modules sit elsewhere.
 */
export const DASHBOARD_ASSETS_DIR = fileURLToPath(new URL('../../dist/ui/', import.meta.url));

/** One built file, held in memory: a few hundred kB in all, read once. */
export interface DashboardAsset {
  body: Buffer;
  type: string;
  /** Hashed names (assets/*) never change, so the browser may keep them. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Every built file by its path under /ui (`index.html`, `assets/index-abc123.js`); empty when not built. */
export async function loadDashboardAssets(dir = DASHBOARD_ASSETS_DIR): Promise<Map<string, DashboardAsset>> {
  const assets = new Map<string, DashboardAsset>();
  let files: string[];
  try {
    files = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return assets;
    throw error;
  }
  for (const file of files) {
    const type = TYPES[extname(file)];
    // Source maps and anything unexpected stay unserved.
    if (type === undefined) continue;
    const path = relative(dir, file).split('\\').join('/');
    assets.set(path, { body: await readFile(file), type, immutable: path.startsWith('assets/') });
  }
  return assets;
}
