import { type ChatEvent, isErrorCode, OpenLegionError } from '@openlegion/protocol';
import type { LaneDispatcher, LaneItemEvent } from './lane-dispatcher.js';
import type { LaneItem } from './lane-item.js';
import type { LaneRepository } from './lane-repository.js';

/**
 * The events of one lane item as they stream, until it settles. A failure is yielded as an
 * `error` event once events have flowed; before any, it is thrown (so an HTTP route can still
 * answer with its status). An item that already settled yields its stored outcome.
 */
export async function* followItem(
  dispatcher: LaneDispatcher,
  repo: LaneRepository,
  item: LaneItem,
): AsyncGenerator<ChatEvent> {
  const pending: LaneItemEvent[] = [];
  let wake: () => void = () => {};
  const unsubscribe = dispatcher.subscribe(item.id, (event) => {
    pending.push(event);
    wake();
  });
  try {
    const current = repo.require(item.id);
    if (current.state !== 'queued' && current.state !== 'running') {
      yield* storedOutcome(current, true);
      return;
    }
    let flowed = false;
    for (;;) {
      if (pending.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const next = pending.shift();
      if (!next) continue;
      if (next.type === 'event') {
        flowed = true;
        yield next.event;
        continue;
      }
      // Events already streamed the outcome; only a failure nobody has heard of is added.
      if (!flowed || next.item.state === 'cancelled') yield* storedOutcome(next.item, !flowed);
      return;
    }
  } finally {
    unsubscribe();
  }
}

function* storedOutcome(item: LaneItem, throwFailure: boolean): Generator<ChatEvent> {
  if (item.state === 'done') {
    yield { type: 'done', conversation_id: item.conversationId, text: item.resultText ?? '' };
    return;
  }
  if (item.state === 'steered') {
    yield { type: 'notice', message: 'steered into the running turn' };
    yield { type: 'done', conversation_id: item.conversationId, text: '' };
    return;
  }
  const code = item.errorCode && isErrorCode(item.errorCode) ? item.errorCode : 'AGENT_NOT_READY';
  const error = new OpenLegionError(code, item.errorMessage ?? `the lane item ended ${item.state}`);
  if (throwFailure) throw error;
  yield { type: 'error', code: error.code, message: error.message, retryable: error.retryable };
}
