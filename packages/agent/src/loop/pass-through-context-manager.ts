import type { ContextManager, ContextRequest, PreparedContext } from '../context/context-manager.js';

/**
 * A {@link ContextManager} that sends the conversation as it is and never compacts: the default
 * until the real one (src/context/) is wired in start-agent.ts, and the tests' stand-in.
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
