import { FakeClock } from '@openlegion/infra/clock';
import { createLogger } from '@openlegion/infra/log';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { type ChatEvent, meshConfigSchema } from '@openlegion/protocol';
import { describe, expect, it } from 'vitest';
import { approvalPollMs } from '../approvals/index.js';
import { LaneDispatcher } from './lane-dispatcher.js';
import type { LaneItem, LaneRequest } from './lane-item.js';
import { LANE_MIGRATIONS } from './lane-migrations.js';
import { enqueue } from './lane-queue.js';
import { LaneRepository } from './lane-repository.js';

const config = meshConfigSchema.parse({
  llm: { providers: { openai: {} } },
  agents: { a: {}, b: {} },
  lanes: { queue_cap: 3, collect_debounce_ms: 500, watchdog_ms: 1_000 },
});

interface Turn {
  item: LaneItem;
  emit: (event: ChatEvent) => void;
  finish: (text: string) => void;
  fail: (error: unknown) => void;
  signal: AbortSignal;
}

/** Lanes over an in-memory mesh.db with a fake clock; each turn waits until the test ends it. */
function lanes(file = ':memory:', db = openDatabase(file)) {
  migrate(db, [{ feature: 'lanes', steps: LANE_MIGRATIONS }]);
  const repo = new LaneRepository(db);
  const clock = new FakeClock(1_000_000);
  const turns: Turn[] = [];
  const delivered: LaneItem[] = [];
  const steered: string[] = [];
  let acceptSteer = false;
  const dispatcher = new LaneDispatcher({
    repo,
    clock,
    logger: createLogger({ level: 'silent' }),
    isReady: () => true,
    runTurn: (item, emit, signal) =>
      new Promise<string>((resolve, reject) => {
        turns.push({ item, emit, finish: resolve, fail: reject, signal });
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    deliver: async (item) => {
      delivered.push(item);
    },
    watchdogMs: config.lanes.watchdog_ms,
  });
  const send = (request: Omit<LaneRequest, 'source'> & { source?: LaneRequest['source'] }) =>
    enqueue(
      {
        config,
        repo,
        dispatcher,
        clock,
        agentState: () => 'ready',
        steer: async (_agent, _conversation, message) => {
          steered.push(message);
          return acceptSteer;
        },
      },
      { source: 'cli', ...request },
    );
  const settle = () => clock.advance(0);
  return {
    db,
    repo,
    clock,
    turns,
    delivered,
    steered,
    dispatcher,
    send,
    settle,
    acceptSteers: () => {
      acceptSteer = true;
    },
  };
}

describe('lanes', () => {
  it("run one agent's work serially and two agents' work in parallel", async () => {
    const lane = lanes();
    await lane.send({ agent: 'a', message: 'a1' });
    await lane.send({ agent: 'a', message: 'a2' });
    await lane.send({ agent: 'b', message: 'b1' });
    expect(lane.turns.map((turn) => turn.item.message)).toEqual(['a1', 'b1']);
    lane.turns[0]?.finish('done a1');
    await lane.settle();
    expect(lane.turns.map((turn) => turn.item.message)).toEqual(['a1', 'b1', 'a2']);
    expect(lane.repo.byKey(lane.turns[0]?.item.idempotencyKey ?? '')).toMatchObject({
      state: 'done',
      resultText: 'done a1',
    });
    expect(lane.delivered.map((item) => item.message)).toEqual(['a1']);
  });

  it('steers a busy conversation into its running turn, and queues a steer for an idle one as a followup', async () => {
    const lane = lanes();
    const idle = await lane.send({ agent: 'a', message: 'first', mode: 'steer' });
    expect(idle.outcome).toBe('queued');
    expect(lane.steered).toEqual([]);
    lane.acceptSteers();
    const busy = await lane.send({ agent: 'a', message: 'change course', mode: 'steer' });
    expect(busy.outcome).toBe('steered');
    expect(lane.steered).toEqual(['change course']);
    expect(lane.repo.queuedCount('a')).toBe(0);
  });

  it('collects three quick messages into one turn once the window has passed', async () => {
    const lane = lanes();
    await lane.send({ agent: 'a', message: 'one', mode: 'collect' });
    await lane.clock.advance(200);
    await lane.send({ agent: 'a', message: 'two', mode: 'collect' });
    await lane.clock.advance(200);
    const third = await lane.send({ agent: 'a', message: 'three', mode: 'collect' });
    expect(third.outcome).toBe('merged');
    await lane.clock.advance(499);
    expect(lane.turns).toEqual([]);
    await lane.clock.advance(1);
    expect(lane.turns.map((turn) => turn.item.message)).toEqual(['one\ntwo\nthree']);
  });

  it('refuses work past the queue cap with MESH_QUEUE_FULL', async () => {
    const lane = lanes();
    for (const message of ['running', 'q1', 'q2', 'q3']) await lane.send({ agent: 'a', message });
    await expect(lane.send({ agent: 'a', message: 'one too many' })).rejects.toMatchObject({
      code: 'MESH_QUEUE_FULL',
      status: 429,
    });
    await expect(lane.send({ agent: 'b', message: 'other lane' })).resolves.toMatchObject({
      outcome: 'queued',
    });
  });

  it('keeps a turn whose tool call waits for approval past the watchdog time: it says it waits after each long poll', async () => {
    const lane = lanes();
    await lane.send({ agent: 'a', message: 'file the issue' });
    const turn = lane.turns[0];
    const waiting: ChatEvent = {
      type: 'approval',
      id: 'ap-1',
      tool: 'github__create_issue',
      state: 'waiting',
    };
    // The agent's gate streams `waiting` after every long poll the host answers (a third of the watchdog).
    for (
      let elapsed = 0;
      elapsed < 10 * config.lanes.watchdog_ms;
      elapsed += approvalPollMs(config.lanes.watchdog_ms)
    ) {
      turn?.emit(waiting);
      await lane.clock.advance(approvalPollMs(config.lanes.watchdog_ms));
    }
    expect(turn?.signal.aborted).toBe(false);
    turn?.emit({ type: 'approval', id: 'ap-1', tool: 'github__create_issue', state: 'approved' });
    turn?.finish('filed');
    await lane.settle();
    expect(lane.repo.byKey(turn?.item.idempotencyKey ?? '')).toMatchObject({ state: 'done' });
  });

  it('ends a turn that streams nothing for the watchdog time, and the lane goes on', async () => {
    const lane = lanes();
    await lane.send({ agent: 'a', message: 'hangs' });
    await lane.send({ agent: 'a', message: 'next' });
    lane.turns[0]?.emit({ type: 'text_delta', text: 'working' });
    await lane.clock.advance(999);
    expect(lane.turns).toHaveLength(1);
    await lane.clock.advance(1);
    expect(lane.repo.byKey(lane.turns[0]?.item.idempotencyKey ?? '')).toMatchObject({
      state: 'failed',
      errorCode: 'AGENT_HUNG',
    });
    expect(lane.turns.map((turn) => turn.item.message)).toEqual(['hangs', 'next']);
  });

  it('interrupts the running turn and runs the newest message before older queued ones', async () => {
    const lane = lanes();
    await lane.send({ agent: 'a', message: 'long task' });
    await lane.send({ agent: 'a', message: 'older followup' });
    await lane.send({ agent: 'a', message: 'stop, do this', mode: 'interrupt' });
    await lane.settle();
    expect(lane.turns[0]?.signal.aborted).toBe(true);
    expect(lane.repo.byKey(lane.turns[0]?.item.idempotencyKey ?? '')?.errorCode).toBe(
      'AGENT_TURN_INTERRUPTED',
    );
    expect(lane.turns.map((turn) => turn.item.message)).toEqual(['long task', 'stop, do this']);
  });

  it('returns the same item for a repeated idempotency key, never a second turn', async () => {
    const lane = lanes();
    const first = await lane.send({ agent: 'a', message: 'once', idempotencyKey: 'k1' });
    const again = await lane.send({ agent: 'a', message: 'once', idempotencyKey: 'k1' });
    expect([again.outcome, again.item.id]).toEqual(['existing', first.item.id]);
    expect(lane.turns).toHaveLength(1);
  });

  it('runs again, after a host restart, what was queued or running, and delivers each result once', async () => {
    const db = openDatabase(':memory:');
    const before = lanes(':memory:', db);
    await before.send({ agent: 'a', message: 'was running' });
    await before.send({ agent: 'a', message: 'was queued' });
    // The host dies here: nothing is stopped cleanly. A new host opens the same database.
    const after = lanes(':memory:', db);
    expect(after.repo.requeueRunning()).toBe(1);
    after.dispatcher.kick('a');
    after.turns[0]?.finish('first reply');
    await after.settle();
    after.turns[1]?.finish('second reply');
    await after.settle();
    expect(after.turns.map((turn) => turn.item.message)).toEqual(['was running', 'was queued']);
    expect(after.delivered.map((item) => item.resultText)).toEqual(['first reply', 'second reply']);
    expect(after.repo.undelivered()).toEqual([]);
  });

  it('runs a turn whose agent went away again once the agent is back, then fails it visibly', async () => {
    const lane = lanes();
    await lane.send({ agent: 'a', message: 'fragile' });
    lane.turns[0]?.fail(new TypeError('terminated'));
    await lane.settle();
    expect(lane.turns).toHaveLength(1);
    lane.dispatcher.agentReady('a');
    expect(lane.turns).toHaveLength(2);
    lane.turns[1]?.emit({ type: 'text_delta', text: 'partial' });
    lane.turns[1]?.fail(new TypeError('terminated'));
    await lane.settle();
    expect(lane.repo.byKey(lane.turns[0]?.item.idempotencyKey ?? '')).toMatchObject({
      state: 'failed',
      errorCode: 'AGENT_NOT_READY',
      attempts: 2,
    });
  });

  it('tries a lane whose agent went away again after a while even if no restart is seen', async () => {
    const lane = lanes();
    await lane.send({ agent: 'a', message: 'fragile' });
    lane.turns[0]?.fail(new TypeError('terminated'));
    await lane.settle();
    await lane.clock.advance(29_999);
    expect(lane.turns).toHaveLength(1);
    await lane.clock.advance(1);
    expect(lane.turns).toHaveLength(2);
  });
});
