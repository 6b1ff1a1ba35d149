import { z } from 'zod';

const contentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const messageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
});

/** The parts of a chat completion request the fake server reads; other fields pass through. */
export const chatCompletionRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(messageSchema).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

/** The parts of an embeddings request the fake server reads. */
export const embeddingsRequestSchema = z.looseObject({
  model: z.string(),
  input: z.union([
    z.string(),
    z.array(z.string()).min(1),
    z.array(z.number()).min(1),
    z.array(z.array(z.number())).min(1),
  ]),
  dimensions: z.number().int().positive().max(4096).nullish(),
  encoding_format: z.enum(['float', 'base64']).nullish(),
});

export type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>;
export type ChatMessage = ChatCompletionRequest['messages'][number];
export type EmbeddingsRequest = z.output<typeof embeddingsRequestSchema>;

/** The text of a message: a string content, or its text parts joined; '' when there is none. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('');
}

/** Describes the first zod issue as `field: problem`, for a 400 error body. */
export function describeRequestError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid request body';
  const field = issue.path.map(String).join('.');
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}
