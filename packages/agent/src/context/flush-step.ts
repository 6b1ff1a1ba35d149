import type { ContextRequest, LlmMessage } from './context-manager.js';
import { type ContextServices, plural, saveState } from './context-services.js';
import type { ContextState } from './context-state-store.js';
import { mergeFacts } from './extracted-facts.js';
import { extractFacts } from './fact-extraction.js';
import { contentText } from './transcript.js';

/**
 * The flush: the messages no flush has read yet (everything a later compaction may cover) go to the
 * fast tier, and the facts it finds are saved (memory engine, MEMORY.md, daily log) before any
 * compaction drops them from the prompt. Marks this cycle's flush as done on success; a failure is
 * logged and leaves it due, so the compaction that follows tries once more.
 */
export async function runFlush(
  services: ContextServices,
  request: ContextRequest,
  body: readonly LlmMessage[],
  state: ContextState,
): Promise<ContextState> {
  const log = services.logger.child({ conversation: request.conversationId, cycle: state.cycle });
  const range = body.slice(Math.min(state.flushedThrough, body.length));
  const done: ContextState = { ...state, flushedCycle: state.cycle, flushedThrough: body.length };
  if (!range.some((message) => contentText(message.content).trim().length > 0)) {
    return saveState(services, request, done);
  }
  try {
    const facts = await extractFacts(services.call, range, request.signal, request.traceId);
    const { ledger, fresh } = mergeFacts(state.facts, facts);
    await services.sink(request.conversationId, fresh, request.signal);
    log.info({ messages: range.length, facts: facts.length, fresh: fresh.length }, 'context flush done');
    request.emit({
      type: 'notice',
      message:
        fresh.length > 0
          ? `Saved ${plural(fresh.length, 'fact')} from this conversation to memory before compacting it.`
          : 'Checked this conversation for facts to save before compacting it: nothing new.',
    });
    return saveState(services, request, { ...done, facts: ledger });
  } catch (error) {
    if (request.signal.aborted) throw error;
    log.warn({ err: error, messages: range.length }, 'context flush failed');
    return state;
  }
}
