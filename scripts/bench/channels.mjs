// channels (issue 26): message in → first reply character out through each chat channel on
// loopback, against the agent's own first token. Each platform's part is its own module
// (bench-channels-<platform>.mjs, exporting `measure({ rounds })`); `pnpm bench channels slack`
// runs one. Target per platform: p50 overhead ≤ 100 ms, where overhead = (in → out) − (the
// agent's first token after it was asked). Needs `pnpm build` first.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { writeResults } from './bench-results.mjs';

const PLATFORMS = ['telegram', 'discord', 'slack'];
const ROUNDS = 40;
const TARGET_P50_OVERHEAD_MS = 100;

export async function main(args) {
  const wanted = args.length > 0 ? args : PLATFORMS;
  const metrics = {};
  let pass = true;
  for (const platform of wanted) {
    const module = new URL(`./bench-channels-${platform}.mjs`, import.meta.url);
    if (!existsSync(fileURLToPath(module))) {
      if (args.length > 0) {
        console.error(`no channel bench for "${platform}"`);
        return 2;
      }
      continue;
    }
    const { measure } = await import(module.href);
    const result = await measure({ rounds: ROUNDS });
    metrics[platform] = result;
    const ok = result.overhead_p50_ms <= TARGET_P50_OVERHEAD_MS;
    pass &&= ok;
    console.log(
      `${platform}: in → first reply char p50 ${result.in_to_out_p50_ms} ms (p95 ${result.in_to_out_p95_ms}), ` +
        `agent first token p50 ${result.agent_first_token_p50_ms} ms, overhead p50 ${result.overhead_p50_ms} ms ` +
        `(target ≤ ${TARGET_P50_OVERHEAD_MS}): ${ok ? 'PASS' : 'FAIL'}`,
    );
  }
  metrics.load_average_1m = loadavg()[0];
  const file = writeResults(
    `channels${args.length > 0 ? `-${wanted.join('-')}` : ''}`,
    metrics,
    {
      overhead_p50_ms_at_most: TARGET_P50_OVERHEAD_MS,
    },
    pass,
  );
  console.log(`results: ${file}`);
  return pass ? 0 : 1;
}
