import type { ContextManager, ContextRequest, PreparedContext } from '../src/context/context-manager.js';

/**
 * A {@link ContextManager} that sends the conversation as it is and never compacts: the loop
 * tests' stand-in, so they see exactly the messages the loop built.
 */
export function createPassThroughContextManager(): ContextManager {
  const passThrough = async (request: ContextRequest): Promise<PreparedContext> => {
    const chars = request.messages.reduce(
      (sum, message) => sum + JSON.stringify(message.content ?? '').length,
      0,
    );
    return { messages: request.messages, promptTokens: Math.ceil(chars / 4), usedRatio: 0 };
  };
  return { prepare: passThrough, compact: (request) => passThrough(request) };
}
