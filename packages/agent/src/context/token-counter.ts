import { estimateTokens } from '@openlegion/memory';
import type { Tiktoken } from 'js-tiktoken/lite';
import type OpenAI from 'openai';
import type { LlmMessage } from './context-manager.js';
import { modelBaseName } from './context-window.js';

/** How a model's tokens are counted: an OpenAI BPE encoding, or the calibrated estimate. */
export type TokenizerKind = 'o200k_base' | 'cl100k_base' | 'estimate';

/** Framing tokens per message (role, separators), as OpenAI's chat format adds them. */
const TOKENS_PER_MESSAGE = 3;
/** Framing of one tool call inside an assistant message (id, type, name/arguments wrapper). */
const TOKENS_PER_TOOL_CALL = 8;
/** Every reply is primed with `<|start|>assistant<|message|>`. */
const REPLY_PRIMING_TOKENS = 3;
/** An image part, priced as one high-detail tile plus the base cost (OpenAI's rule of thumb). */
const TOKENS_PER_IMAGE = 765;
/**
 * Other providers' tokenizers (Claude's most of all) cut English into more pieces than
 * cl100k_base, on which the estimate is calibrated: count them 10% high so thresholds fire early
 * rather than after the provider refuses the prompt.
 */
const ESTIMATE_SAFETY_FACTOR = 1.1;
/** Texts shorter than this are counted again rather than cached (the cache would cost more). */
const CACHE_MIN_CHARS = 200;
const CACHE_MAX_ENTRIES = 4_000;
/** The cache keeps the texts as keys: bounded in characters too, so long tool outputs cannot fill an agent's memory. */
const CACHE_MAX_CHARS = 4_000_000;

/** Which tokenizer a model uses: OpenAI families get their real BPE, everyone else the estimate. */
export function tokenizerFor(model: string): TokenizerKind {
  const name = modelBaseName(model);
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o[134](-|$))/.test(name)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|gpt-35|text-embedding)/.test(name)) return 'cl100k_base';
  return 'estimate';
}

/**
 * Counts prompt tokens the way the model will. The BPE tables (1–2 MB each, ~0.3–0.5 s to build)
 * load on first use, never at agent start-up; {@link TokenCounter.warm} starts that early. Counts of
 * long texts are cached, since every LLM call of a turn re-counts the same history.
 */
export class TokenCounter {
  readonly #encoders = new Map<TokenizerKind, Promise<Tiktoken>>();
  readonly #loaded = new Map<TokenizerKind, Tiktoken>();
  readonly #cache = new Map<string, number>();
  #cachedChars = 0;

  /** True when counting `model` needs nothing loaded (it is estimated, or its table is ready). */
  isReady(model: string): boolean {
    const kind = tokenizerFor(model);
    return kind === 'estimate' || this.#loaded.has(kind);
  }

  /** Load `model`'s tokenizer in the background; a failure shows again at the next exact count. */
  warm(model: string): void {
    const kind = tokenizerFor(model);
    if (kind !== 'estimate') this.#encoder(kind).catch(() => undefined);
  }

  /** Tokens of a whole prompt: messages, their tool calls and results, and the tool definitions. */
  async countPrompt(
    model: string,
    messages: readonly LlmMessage[],
    tools?: readonly OpenAI.Chat.Completions.ChatCompletionTool[],
  ): Promise<number> {
    const kind = tokenizerFor(model);
    const count = kind === 'estimate' ? estimateTokens : await this.#exactCounter(kind);
    return this.#countWith(kind, count, messages, tools);
  }

  /**
   * The same count from the estimate alone, never waiting for a table to load; for the cheap
   * "is this anywhere near a threshold?" check before the first exact count.
   */
  estimatePrompt(
    messages: readonly LlmMessage[],
    tools?: readonly OpenAI.Chat.Completions.ChatCompletionTool[],
  ): number {
    return this.#countWith('estimate', estimateTokens, messages, tools);
  }

  /** Tokens of one text for `model`. */
  async countText(model: string, text: string): Promise<number> {
    const kind = tokenizerFor(model);
    const count = kind === 'estimate' ? estimateTokens : await this.#exactCounter(kind);
    return this.#cached(kind, count, text);
  }

  #countWith(
    kind: TokenizerKind,
    count: (text: string) => number,
    messages: readonly LlmMessage[],
    tools?: readonly OpenAI.Chat.Completions.ChatCompletionTool[],
  ): number {
    let tokens = REPLY_PRIMING_TOKENS;
    for (const message of messages) tokens += this.#messageTokens(kind, count, message);
    if (tools && tools.length > 0) tokens += this.#cached(kind, count, JSON.stringify(tools));
    return kind === 'estimate' ? Math.ceil(tokens * ESTIMATE_SAFETY_FACTOR) : tokens;
  }

  #messageTokens(kind: TokenizerKind, count: (text: string) => number, message: LlmMessage): number {
    let tokens = TOKENS_PER_MESSAGE + 1; // the role is one token
    tokens += this.#contentTokens(kind, count, message.content);
    if ('name' in message && typeof message.name === 'string') tokens += 1 + count(message.name);
    if (message.role === 'tool') tokens += count(message.tool_call_id);
    if (message.role === 'assistant' && message.tool_calls) {
      for (const call of message.tool_calls) {
        tokens += TOKENS_PER_TOOL_CALL + count(call.id);
        if (call.type === 'function') {
          tokens += count(call.function.name) + this.#cached(kind, count, call.function.arguments);
        } else {
          tokens += this.#cached(kind, count, JSON.stringify(call));
        }
      }
    }
    return tokens;
  }

  #contentTokens(
    kind: TokenizerKind,
    count: (text: string) => number,
    content: LlmMessage['content'],
  ): number {
    if (content === null || content === undefined) return 0;
    if (typeof content === 'string') return this.#cached(kind, count, content);
    let tokens = 0;
    for (const part of content) {
      if (part.type === 'text') tokens += this.#cached(kind, count, part.text);
      else if (part.type === 'refusal') tokens += count(part.refusal);
      else if (part.type === 'image_url') tokens += TOKENS_PER_IMAGE;
      else tokens += this.#cached(kind, count, JSON.stringify(part));
    }
    return tokens;
  }

  #cached(kind: TokenizerKind, count: (text: string) => number, text: string): number {
    if (text.length < CACHE_MIN_CHARS) return count(text);
    const key = `${kind}\u0000${text}`;
    const hit = this.#cache.get(key);
    if (hit !== undefined) return hit;
    const tokens = count(text);
    if (key.length > CACHE_MAX_CHARS) return tokens;
    // Oldest first: Map keeps insertion order.
    while (this.#cache.size >= CACHE_MAX_ENTRIES || this.#cachedChars + key.length > CACHE_MAX_CHARS) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
      this.#cachedChars -= oldest.length;
    }
    this.#cache.set(key, tokens);
    this.#cachedChars += key.length;
    return tokens;
  }

  async #exactCounter(kind: Exclude<TokenizerKind, 'estimate'>): Promise<(text: string) => number> {
    const encoder = this.#loaded.get(kind) ?? (await this.#encoder(kind));
    // Special-token text (`<|endoftext|>`) in a user's message is plain text here, never an error.
    return (text) => encoder.encode(text, [], []).length;
  }

  #encoder(kind: Exclude<TokenizerKind, 'estimate'>): Promise<Tiktoken> {
    let pending = this.#encoders.get(kind);
    if (!pending) {
      pending = loadEncoder(kind).then((encoder) => {
        this.#loaded.set(kind, encoder);
        return encoder;
      });
      pending.catch(() => this.#encoders.delete(kind));
      this.#encoders.set(kind, pending);
    }
    return pending;
  }
}

async function loadEncoder(kind: Exclude<TokenizerKind, 'estimate'>): Promise<Tiktoken> {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const ranks =
    kind === 'o200k_base'
      ? (await import('js-tiktoken/ranks/o200k_base')).default
      : (await import('js-tiktoken/ranks/cl100k_base')).default;
  return new Tiktoken(ranks);
}
