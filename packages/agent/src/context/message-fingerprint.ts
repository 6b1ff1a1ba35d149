import { createHash } from 'node:crypto';
import type { LlmMessage } from './context-manager.js';
import { contentText } from './transcript.js';

/**
 * A short hash of what a message says (role, text, tool ids), not of how its object was built: a
 * message read back from the store and the same message built during its turn hash alike.
 */
export function messageFingerprint(message: LlmMessage | undefined): string {
  if (!message) return '';
  const hash = createHash('sha256')
    .update(message.role)
    .update('\u0000')
    .update(contentText(message.content));
  if (message.role === 'tool') hash.update('\u0000').update(message.tool_call_id);
  if (message.role === 'assistant') {
    for (const call of message.tool_calls ?? []) hash.update('\u0000').update(call.id);
  }
  return hash.digest('base64url').slice(0, 22);
}
