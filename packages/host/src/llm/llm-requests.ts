import { z } from 'zod';

/**
 * `POST /v1/chat/completions`: only what the proxy reads is checked; every other field passes
 * through to the provider untouched.
 */
export const chatCompletionBodySchema = z.looseObject({
  model: z.string().min(1, 'model must name a tier or provider/model'),
  stream: z.boolean().optional(),
  messages: z.array(z.unknown()).min(1, 'messages must not be empty'),
});
export type ChatCompletionBody = z.infer<typeof chatCompletionBodySchema>;

/** `POST /v1/embeddings`: `model` defaults to `llm.embedding_model`. */
export const embeddingsBodySchema = z.looseObject({
  model: z.string().min(1).optional(),
  input: z.union([z.string(), z.array(z.unknown())]),
});
export type EmbeddingsBody = z.infer<typeof embeddingsBodySchema>;
