import { parseRequest } from '@openlegion/infra/http';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LCM_PATTERN_MAX_CHARS, lcmDescribe, lcmExpand, lcmGrep } from './lcm-queries.js';
import type { SummaryStore } from './summary-store.js';

const grepBody = z.object({
  pattern: z.string().max(LCM_PATTERN_MAX_CHARS),
  limit: z.number().int().min(1).max(50).default(10),
  conversation: z.string().min(1).max(200).optional(),
});
const idParams = z.object({ id: z.string().regex(/^[Ss]?\d{1,12}$/, 'use a summary id such as S12') });
const expandQuery = z.object({
  from: z.coerce.number().int().min(1).optional(),
  conversation: z.string().min(1).max(200).optional(),
});

/**
 * The operator's view into the lossless context store (bearer auth comes from the scope it is
 * registered in): `POST /lcm/grep`, `GET /lcm/describe/:id`, `GET /lcm/expand/:id` and
 * `GET /lcm/expand?conversation=…&from=…`. Answers are `{ text }`, what the agent's tools give.
 */
export function lcmRoutes(store: () => SummaryStore) {
  return async (app: FastifyInstance): Promise<void> => {
    app.post('/lcm/grep', async (request) => {
      const body = parseRequest(grepBody, request.body ?? {});
      return {
        text: lcmGrep(store(), {
          pattern: body.pattern,
          limit: body.limit,
          conversationId: body.conversation,
        }),
      };
    });
    app.get('/lcm/describe/:id', async (request) => ({
      text: lcmDescribe(store(), summaryNumber(parseRequest(idParams, request.params, 'params').id)),
    }));
    app.get('/lcm/expand/:id', async (request) => {
      const id = summaryNumber(parseRequest(idParams, request.params, 'params').id);
      const query = parseRequest(expandQuery, request.query, 'query');
      return { text: lcmExpand(store(), { id, from: query.from }) };
    });
    app.get('/lcm/expand', async (request) => {
      const query = parseRequest(expandQuery, request.query, 'query');
      return { text: lcmExpand(store(), { conversationId: query.conversation, from: query.from }) };
    });
  };
}

function summaryNumber(id: string): number {
  return Number(id.replace(/^[Ss]/, ''));
}
