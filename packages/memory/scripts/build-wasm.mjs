// Compiles src/store/vector-scan/int8-dot.wat into the base64 module the package loads
// (src/store/vector-scan/int8-dot-wasm.ts). Run after editing the .wat: `pnpm --filter @openlegion/memory wasm`.
// A unit test compiles the .wat again and fails when the committed module differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import createWabt from 'wabt';

const dir = fileURLToPath(new URL('../src/store/vector-scan/', import.meta.url));
const wabt = await createWabt();
const module = wabt.parseWat('int8-dot.wat', readFileSync(`${dir}int8-dot.wat`, 'utf8'), { simd: true });
const { buffer } = module.toBinary({});
module.destroy();
writeFileSync(
  `${dir}int8-dot-wasm.ts`,
  `// Generated from int8-dot.wat by scripts/build-wasm.mjs; do not edit.\n` +
    `export const INT8_DOT_WASM = '${Buffer.from(buffer).toString('base64')}';\n`,
);
console.log(`int8-dot.wasm: ${buffer.length} bytes`);
