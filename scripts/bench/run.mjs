#!/usr/bin/env node
// `pnpm bench` lists the benchmarks; `pnpm bench <name>` runs scripts/bench/<name>.mjs.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const names = readdirSync(dir)
  .filter((file) => file.endsWith('.mjs') && file !== 'run.mjs' && !file.startsWith('bench-'))
  .map((file) => file.slice(0, -'.mjs'.length));
const [name, ...args] = process.argv.slice(2);
if (!name) {
  console.log(`benchmarks: ${names.join(', ')}\nrun one: pnpm bench <name>`);
} else if (!names.includes(name)) {
  console.error(`no benchmark "${name}"; have: ${names.join(', ')}`);
  process.exitCode = 2;
} else {
  const { main } = await import(new URL(`./${name}.mjs`, import.meta.url).href);
  process.exitCode = await main(args);
}
