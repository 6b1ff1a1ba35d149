import type { LlmAnswer } from '../server/index.js';

/** The token counts a provider reported, or that were estimated when it reported none. */
export interface TappedUsage {
  prompt: number;
  completion: number;
  cached: number;
  /** The provider sent no usage: `completion` is estimated from the text streamed. */
  estimated: boolean;
  /** Why each choice ended (`stop`, `length`, `tool_calls`), as the provider said (telemetry). */
  finishReasons: string[];
  /** The model the provider says answered, when it said. */
  responseModel: string | undefined;
}

interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
}

/** Decodes whole bodies in one call each (no state between calls), so one serves them all. */
const WHOLE_DECODER = new TextDecoder();

/** Non-stream answers are small; past this the body is not kept for its usage (it is estimated). */
const MAX_BODY_KEPT = 4 * 1024 * 1024;

/** One per choice; a provider streaming more is not believed past this. */
const MAX_FINISH_REASONS = 16;

/**
 * The same answer, its bytes passing through unbuffered, read on the way for the usage the
 * provider reports: in a stream, the `data:` chunk that carries `usage` (stream_options.include_usage);
 * otherwise the JSON body's `usage`. `onEnd` runs once when the body ends, fails or is cancelled,
 * with the usage, or an estimate from the characters of text seen (about 4 per token).
 */
export function tapUsage(
  answer: LlmAnswer,
  stream: boolean,
  promptEstimate: number,
  onEnd: (usage: TappedUsage) => void,
): LlmAnswer {
  const source = answer.body;
  let reported: OpenAiUsage | undefined;
  let textChars = 0;
  let pending = '';
  let kept = '';
  let ended = false;
  const finishReasons: string[] = [];
  let responseModel: string | undefined;
  const noteChoices = (model: unknown, choices: Array<{ finish_reason?: unknown }> | undefined) => {
    if (typeof model === 'string' && responseModel === undefined) responseModel = model.slice(0, 200);
    for (const choice of choices ?? [])
      if (typeof choice.finish_reason === 'string' && finishReasons.length < MAX_FINISH_REASONS)
        finishReasons.push(choice.finish_reason.slice(0, 50));
  };
  const end = () => {
    if (ended) return;
    ended = true;
    if (!stream && kept.length > 0) {
      try {
        const parsed = JSON.parse(kept) as {
          usage?: OpenAiUsage;
          model?: unknown;
          choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }>;
        };
        reported = parsed.usage;
        noteChoices(parsed.model, parsed.choices);
        textChars = String(parsed.choices?.[0]?.message?.content ?? '').length;
      } catch {}
    }
    const told = { finishReasons, responseModel };
    onEnd(
      reported?.prompt_tokens !== undefined
        ? {
            prompt: reported.prompt_tokens,
            completion: reported.completion_tokens ?? 0,
            cached: reported.prompt_tokens_details?.cached_tokens ?? 0,
            estimated: false,
            ...told,
          }
        : {
            prompt: promptEstimate,
            completion: Math.ceil(textChars / 4),
            cached: 0,
            estimated: true,
            ...told,
          },
    );
  };
  const scan = (text: string) => {
    if (!stream) {
      if (kept.length + text.length <= MAX_BODY_KEPT) kept += text;
      return;
    }
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data:') || line.includes('[DONE]')) continue;
      try {
        const chunk = JSON.parse(line.slice(5)) as {
          usage?: OpenAiUsage;
          model?: unknown;
          choices?: Array<{ delta?: { content?: string }; finish_reason?: unknown }>;
        };
        if (chunk.usage) reported = chunk.usage;
        noteChoices(chunk.model, chunk.choices);
        textChars += chunk.choices?.[0]?.delta?.content?.length ?? 0;
      } catch {}
    }
  };
  if (source instanceof Uint8Array) {
    // A whole answer already in memory: its usage is read now, and it goes on as it is.
    if (stream) scan(WHOLE_DECODER.decode(source));
    else if (source.length <= MAX_BODY_KEPT) kept = WHOLE_DECODER.decode(source);
    end();
    return answer;
  }
  const decoder = new TextDecoder();
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
          return;
        }
        scan(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason);
    },
  });
  return { ...answer, body };
}
