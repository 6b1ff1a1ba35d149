import type { ChatEvent } from '@openlegion/protocol';
import { SILENT_REPLY_TOKEN } from '../prompt/system-prompt.js';

/** True when a reply is the silent token alone (whitespace around it allowed). */
export function isSilentReply(text: string): boolean {
  return text.trim() === SILENT_REPLY_TOKEN;
}

/**
 * Holds back `text_delta` events while the text so far could still be the silent token, so a
 * silent reply never reaches the user, and lets everything else through as it streams.
 */
export class SilentReplyGate {
  readonly #emit: (event: ChatEvent) => void;
  #held: string[] = [];
  #text = '';
  #open = false;

  constructor(emit: (event: ChatEvent) => void) {
    this.#emit = emit;
  }

  /** The emitter to stream one model answer through. */
  readonly emit = (event: ChatEvent): void => {
    if (event.type !== 'text_delta' || this.#open) {
      this.#emit(event);
      return;
    }
    this.#text += event.text;
    this.#held.push(event.text);
    if (!SILENT_REPLY_TOKEN.startsWith(this.#text.trim())) this.#flush();
  };

  /** The answer is complete: release what was held unless it was the silent token. */
  finish(): void {
    if (!isSilentReply(this.#text)) this.#flush();
    this.#held = [];
  }

  #flush(): void {
    this.#open = true;
    for (const text of this.#held.splice(0)) this.#emit({ type: 'text_delta', text });
  }
}
