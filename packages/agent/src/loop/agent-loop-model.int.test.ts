import type { ChatEvent } from '@openlegion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type LoopHarness, startLoopHarness, TEST_MODEL } from '../../test/loop-harness.js';

const notices = (events: ChatEvent[]) =>
  events.flatMap((event) => (event.type === 'notice' ? [event.message] : []));
const BIG = 'openai/gpt-big';
const script = {
  models: [TEST_MODEL, 'fast', BIG, 'openai/not-yours'],
  rules: [
    {
      match: { model: 'openai/not-yours' },
      fail: { status: 403, code: 'LLM_MODEL_FORBIDDEN', message: 'agent "a" may not call openai/not-yours' },
    },
  ],
  default: { text: 'ok' },
};

describe('the /model directive', () => {
  let harness: LoopHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('switches the conversation to a tier and keeps it for the next turns, only in that conversation', async () => {
    harness = await startLoopHarness({ script });
    const switched = await harness.chat('/model fast');
    expect(switched).toEqual([
      { type: 'notice', message: `model for this conversation: fast (was ${TEST_MODEL})` },
      { type: 'done', conversation_id: 'c', text: '' },
    ]);
    expect(harness.sent()).toEqual([]);
    await harness.chat('hello');
    await harness.chat('hello elsewhere', { conversationId: 'other' });
    expect(harness.sent().map((request) => request.model)).toEqual(['fast', TEST_MODEL]);
    expect(harness.store.modelOf('c')).toBe('fast');
    // The directive is not part of what is stored.
    expect(harness.store.list('c').map((message) => message.content)).toEqual(['hello', 'ok']);
  });

  it('switches and answers in one message, shows the model, and resets to mesh.yaml', async () => {
    harness = await startLoopHarness({ script });
    const events = await harness.chat(`/model ${BIG} what now?`);
    expect(notices(events)).toEqual([
      `model for this conversation: ${BIG} (was ${TEST_MODEL}); the host checks that this agent may call it`,
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', conversation_id: 'c', text: 'ok' });
    expect(harness.sent().at(-1)?.model).toBe(BIG);

    expect(notices(await harness.chat('/model'))).toEqual([
      `model for this conversation: ${BIG} (set by /model; mesh.yaml's is ${TEST_MODEL}); switch with /model fast|default|complex|provider/model, or /model reset`,
    ]);
    expect(notices(await harness.chat('/model reset'))).toEqual([
      `model for this conversation: back to mesh.yaml's ${TEST_MODEL}`,
    ]);
    await harness.chat('and now?');
    expect(harness.sent().map((request) => request.model)).toEqual([BIG, TEST_MODEL]);
    expect(harness.store.modelOf('c')).toBeUndefined();
  });

  it('does not keep a model the host refuses: a notice says so and the turn answers on mesh.yaml’s', async () => {
    harness = await startLoopHarness({ script });
    const events = await harness.chat('/model openai/not-yours hi');
    expect(notices(events)).toEqual([
      'model for this conversation: openai/not-yours (was scripted/gpt-test); the host checks that this agent may call it',
      `the host refused openai/not-yours (LLM_MODEL_FORBIDDEN: agent "a" may not call openai/not-yours); the switch is not kept: back to ${TEST_MODEL}`,
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', conversation_id: 'c', text: 'ok' });
    expect(harness.sent().map((request) => request.model)).toEqual(['openai/not-yours', TEST_MODEL]);
    expect(harness.store.modelOf('c')).toBeUndefined();
    expect(harness.store.list('c').map((message) => message.content)).toEqual(['hi', 'ok']);
  });

  it('does not keep a provider mesh.yaml does not configure either', async () => {
    harness = await startLoopHarness({
      script: {
        models: [TEST_MODEL, 'nowhere/model'],
        rules: [
          {
            match: { model: 'nowhere/model' },
            fail: {
              status: 400,
              code: 'LLM_PROVIDER_UNKNOWN',
              message: 'no provider "nowhere" in mesh.yaml',
            },
          },
        ],
        default: { text: 'ok' },
      },
    });
    const events = await harness.chat('/model nowhere/model hi');
    expect(notices(events).at(-1)).toBe(
      `the host refused nowhere/model (LLM_PROVIDER_UNKNOWN: no provider "nowhere" in mesh.yaml); the switch is not kept: back to ${TEST_MODEL}`,
    );
    expect(events.at(-1)).toEqual({ type: 'done', conversation_id: 'c', text: 'ok' });
    expect(harness.store.modelOf('c')).toBeUndefined();
  });

  it('still ends the turn with LLM_MODEL_FORBIDDEN when mesh.yaml’s own model is refused', async () => {
    harness = await startLoopHarness({
      script: { rules: [{ fail: { status: 403, code: 'LLM_MODEL_FORBIDDEN', message: 'no' } }] },
    });
    const events = await harness.chat('/model default hi');
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'LLM_MODEL_FORBIDDEN' });
    expect(harness.sent()).toHaveLength(1);
  });
});
