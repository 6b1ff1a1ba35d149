import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { hostLogDestination } from './host-log.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('creates the host log readable by its owner alone, whatever the umask leaves', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'host-log-'));
  dirs.push(dir);
  const file = path.join(dir, 'host.log');
  const previous = process.umask(0o022);
  try {
    const log = hostLogDestination(file);
    await new Promise((resolve) => log.once('ready', resolve));
    log.write('{"msg":"started"}\n');
    log.flushSync();
    log.end();
  } finally {
    process.umask(previous);
  }
  expect(statSync(file).mode & 0o777).toBe(0o600);
});
