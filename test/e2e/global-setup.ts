import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** e2e runs the built CLI and the real agent image: make sure both are current (cheap when they are). */
export default function setup(): void {
  execFileSync('pnpm', ['-s', 'tsc', '-b'], { cwd: root, stdio: 'inherit' });
  let dockerAnswers = true;
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore' });
  } catch {
    dockerAnswers = false;
  }
  // A run that must use the agent image as it is (another run builds it, or a shared machine).
  if (process.env.OPENLEGION_E2E_KEEP_AGENT_IMAGE === '1') return;
  if (!dockerAnswers) {
    if (process.env.OPENLEGION_REQUIRE_DOCKER === '1') {
      throw new Error(
        'OPENLEGION_REQUIRE_DOCKER=1 but no Docker engine answers; run: bash scripts/ensure-docker.sh',
      );
    }
    return;
  }
  execFileSync('bash', ['scripts/build-agent-image.sh'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
