import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { agentSelfSchema } from '@openlegion/protocol';
import { type FakeLlm, type FakeMeshHost, startFakeLlm, startFakeMeshHost } from '@openlegion/testkit';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalAgent } from '../test/local-agent.js';
import type { RunningAgent } from './start-agent.js';

const TOKEN = 'start-agent-token-123456';

describe('startAgent wiring', () => {
  let llm: FakeLlm;
  let host: FakeMeshHost;
  let dataDir: string;
  let agent: RunningAgent | undefined;
  afterEach(async () => {
    await agent?.close();
    await host.close();
    await llm.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (tools: string | string[], logLines: string[] = []) => {
    const self = agentSelfSchema.parse({
      agent: 'w',
      mesh: 'm',
      role: '',
      model: 'scripted/gpt-test',
      soul: '',
      tools,
    });
    llm = await startFakeLlm({ script: { models: [self.model], default: { text: 'ok' } } });
    host = await startFakeMeshHost({ agents: new Map([[TOKEN, self]]), llmUrl: llm.url });
    dataDir = mkdtempSync(join(tmpdir(), 'start-agent-'));
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    agent = await startLocalAgent({
      agentId: 'w',
      meshUrl: host.url,
      token: TOKEN,
      dataDir: dataDir,
      logger: pino({ level: 'warn' }, sink),
      version: '1',
    });
    return logLines;
  };

  it('warns right after start-up, naming the mesh.yaml tool names it does not have', async () => {
    const lines = await start(['memory_search', 'raed_file']);
    // The runtime (tools, loop) loads just after the agent reports ready, without waiting for a turn.
    await expect
      .poll(() => lines.join(''), { timeout: 5_000 })
      .toContain('mesh.yaml tools names tools this agent does not have: raed_file');
  });

  it('keeps a workspace file the user changed when it starts again', async () => {
    // Start once (scaffolds USER.md), write the file as a user would, restart on the same data dir.
    await start('full');
    const soul = join(dataDir, 'workspace', 'USER.md');
    writeFileSync(soul, 'Mine.');
    await agent?.close();
    agent = await startLocalAgent({
      agentId: 'w',
      meshUrl: host.url,
      token: TOKEN,
      dataDir: dataDir,
      version: '1',
    });
    expect(readFileSync(soul, 'utf8')).toBe('Mine.');
  });
  it('says once at boot that an edited workspace AGENTS.md is no longer read, and how to keep it', async () => {
    await start('full');
    writeFileSync(join(dataDir, 'workspace', 'AGENTS.md'), 'My edited rules.');
    await agent?.close();
    const lines: string[] = [];
    agent = await startLocalAgent({
      agentId: 'w',
      meshUrl: host.url,
      token: TOKEN,
      dataDir: dataDir,
      logger: pino(
        { level: 'warn' },
        new Writable({
          write(chunk, _encoding, done) {
            lines.push(String(chunk));
            done();
          },
        }),
      ),
      version: '1',
    });
    const told = lines.filter((line) => line.includes('AGENTS.md in the workspace is no longer read'));
    expect([told.length, told[0]]).toEqual([
      1,
      expect.stringContaining('openlegion instructions w AGENTS.md'),
    ]);
    expect(readFileSync(join(dataDir, 'workspace', 'AGENTS.md'), 'utf8')).toBe('My edited rules.');
  });
});
