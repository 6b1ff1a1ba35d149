import { parseRequest } from '@openlegion/infra/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { abortOnClientClose } from '../server/client-abort.js';
import { sendUpstream } from '../server/upstream-reply.js';
import { chatCompletionBodySchema, embeddingsBodySchema, type LlmProxy } from './index.js';

/** The OpenAI-compatible routes: any OpenAI client pointed at `<host>/v1` works unchanged. */
export function registerLlmRoutes(app: FastifyInstance, llm: LlmProxy): void {
  const auth = { auth: 'agent-or-operator' } as const;

  app.post('/v1/chat/completions', { config: auth }, async (request, reply) => {
    const body = parseRequest(chatCompletionBodySchema, request.body);
    const upstream = await llm.forwardChatCompletion(body, {
      agent: callerName(request),
      signal: abortOnClientClose(reply),
    });
    return sendUpstream(reply, upstream);
  });

  app.post('/v1/embeddings', { config: auth }, async (request, reply) => {
    const body = parseRequest(embeddingsBodySchema, request.body);
    const upstream = await llm.forwardEmbeddings(body, {
      agent: callerName(request),
      signal: abortOnClientClose(reply),
    });
    return sendUpstream(reply, upstream);
  });

  app.get('/v1/models', { config: auth }, async () => llm.listModels());
}

function callerName(request: FastifyRequest): string {
  return request.agent ?? 'operator';
}
