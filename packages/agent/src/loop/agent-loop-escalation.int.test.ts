import type { ChatEvent } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  counterTool,
  type LoopHarness,
  startLoopHarness,
  TEST_MODEL,
  textOf,
} from '../../test/loop-harness.js';

const notices = (events: ChatEvent[]) =>
  events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));
const call = (name: string, args: unknown) => ({ name, arguments: args as Record<string, unknown> });

describe('the agent loop with loop.escalate (seed 004)', () => {
  let harness: LoopHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('moves a repeating turn to the complex tier once instead of ending it', async () => {
    const counter = counterTool();
    harness = await startLoopHarness({
      self: { loop: { escalate: true, classify: false, max_tool_rounds: 30, max_task_iterations: 20 } },
      tools: [counter],
      script: {
        models: [TEST_MODEL, 'complex'],
        rules: [{ match: { model: 'complex' }, reply: { text: 'Solved another way.' } }],
        default: { tool_calls: [call('counter', { by: 1 })] },
      },
    });
    const events = await harness.chat('loop forever');
    expect(events.at(-1)).toEqual({ type: 'done', conversation_id: 'c', text: 'Solved another way.' });
    expect(notices(events)).toContain(
      'counter was called 9 times with the same arguments; escalating this turn to the complex tier',
    );
    const models = harness.sent().map((request) => request.model);
    expect(models.slice(-2)).toEqual([TEST_MODEL, 'complex']);
    expect(textOf(harness.sent().at(-1)?.messages.at(-1))).toContain('Try another approach.');
  });

  it('gives a turn out of tool rounds a new allowance on the complex tier', async () => {
    const counter = counterTool();
    harness = await startLoopHarness({
      self: { loop: { escalate: true, classify: false, max_tool_rounds: 2, max_task_iterations: 20 } },
      tools: [counter],
      script: {
        models: [TEST_MODEL, 'complex'],
        rules: [{ match: { model: 'complex' }, reply: { text: 'Done on the bigger model.' } }],
        default: { tool_calls: [call('counter', { by: 1 }), call('counter', { by: 2 })] },
      },
    });
    const events = await harness.chat('count a lot');
    expect(notices(events)).toContain(
      'used all 2 tool rounds without an answer; escalating this turn to the complex tier',
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', text: 'Done on the bigger model.' });
  });
});
