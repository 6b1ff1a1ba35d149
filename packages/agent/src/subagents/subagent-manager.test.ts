import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatEvent } from '@openlegion/protocol';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentLoop } from '../loop/agent-loop.js';
import { MAX_CONCURRENT_SUBAGENTS, SubagentManager } from './subagent-manager.js';
import type { SubagentSpec } from './subagent-types.js';

/** A child loop that answers when the test says, emitting what the test gives it. */
function scriptedChild() {
  const turns: Array<{
    task: string;
    emit: (event: ChatEvent) => void;
    signal: AbortSignal;
    finish: () => void;
  }> = [];
  const loop = {
    runTask: (task: { message: string }, emit: (event: ChatEvent) => void, signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        signal.addEventListener('abort', () => resolve(), { once: true });
        turns.push({ task: task.message, emit, signal, finish: resolve });
      }),
  } as unknown as AgentLoop;
  return { loop, turns };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function manager() {
  const workspace = mkdtempSync(join(tmpdir(), 'subagents-'));
  dirs.push(workspace);
  const child = scriptedChild();
  const made: Array<{ depth: number; workspace: string }> = [];
  const subagents = new SubagentManager({
    workspace,
    childLoop: (spec) => {
      made.push({ depth: spec.depth, workspace: spec.workspace });
      return child.loop;
    },
    logger: pino({ level: 'silent' }),
  });
  return { subagents, child, made, workspace };
}

const spec = (overrides: Partial<SubagentSpec> = {}): SubagentSpec => ({
  task: 'do it',
  role: 'helper',
  tools: 'minimal',
  timeoutMs: 60_000,
  maxTokens: 10_000,
  parentDepth: 0,
  ...overrides,
});

describe('SubagentManager', () => {
  it('runs a child in its own workspace folder and returns its answer once, to collect', async () => {
    const { subagents, child, made, workspace } = manager();
    const record = subagents.spawn(spec());
    expect(made).toEqual([{ depth: 1, workspace: join(workspace, 'subagents', record.id) }]);
    const turn = child.turns[0];
    turn?.emit({ type: 'usage', model: 'm', prompt_tokens: 100, completion_tokens: 20 });
    turn?.emit({ type: 'done', conversation_id: 'c', text: 'the answer' });
    turn?.finish();
    const first = await subagents.collect(1_000);
    expect(first.ended).toMatchObject([{ id: record.id, state: 'done', result: 'the answer', tokens: 120 }]);
    expect((await subagents.collect(0)).ended).toEqual([]);
  });

  it('refuses a spawn past depth 3 and past four running at once, saying what to do', () => {
    const { subagents } = manager();
    expect(() => subagents.spawn(spec({ parentDepth: 3 }))).toThrow(
      'a subagent at depth 3 may not spawn: subagents nest 3 deep at most; do the work yourself',
    );
    for (let i = 0; i < MAX_CONCURRENT_SUBAGENTS; i += 1) subagents.spawn(spec());
    expect(() => subagents.spawn(spec())).toThrow(
      '4 subagents are running (at most 4 at once); wait for one with subagent_result or end one with subagent_kill',
    );
  });

  it('stops a child past its token budget, and one killed, each saying why', async () => {
    const { subagents, child } = manager();
    const hungry = subagents.spawn(spec({ maxTokens: 1_000 }));
    child.turns[0]?.emit({ type: 'usage', model: 'm', prompt_tokens: 900, completion_tokens: 200 });
    expect(await subagents.result(hungry.id, 1_000)).toMatchObject({
      state: 'over_budget',
      result: 'stopped: it spent more than its 1000 tokens',
    });
    const other = subagents.spawn(spec());
    subagents.kill(other.id);
    expect(await subagents.result(other.id, 1_000)).toMatchObject({
      state: 'killed',
      result: 'stopped: killed',
    });
  });

  it('reports a failed child with its error, and an unknown id', async () => {
    const { subagents, child } = manager();
    const record = subagents.spawn(spec());
    child.turns[0]?.emit({
      type: 'error',
      code: 'AGENT_LLM_FAILED',
      message: 'provider down',
      retryable: true,
    });
    child.turns[0]?.finish();
    expect(await subagents.result(record.id, 1_000)).toMatchObject({
      state: 'failed',
      result: 'AGENT_LLM_FAILED: provider down',
    });
    await expect(subagents.result('sub-nope', 0)).rejects.toThrow(
      'no subagent "sub-nope" (subagents_list shows them)',
    );
  });
});
