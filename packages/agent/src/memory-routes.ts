import { parseRequest } from '@openlegion/infra/http';
import type { MemoryEngine } from '@openlegion/memory';
import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

/** Imports are JSON lines and may be far larger than a chat message. */
const IMPORT_BODY_LIMIT_BYTES = 64 * 1024 * 1024;

const searchBody = z.object({
  query: z.string(),
  limit: z.number().int().optional(),
  scopes: z.array(z.string()).optional(),
  categories: z.array(z.string()).optional(),
  /** Category-first search with a sufficiency check (the chat default) instead of flat. */
  hierarchical: z.boolean().default(false),
});

const listQuery = z.object({
  scope: z.string().optional(),
  category: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  history: z.enum(['true', 'false']).default('false'),
});

const idParams = z.object({ id: z.coerce.number().int().positive() });
const importQuery = z.object({ ids: z.enum(['keep', 'new']).default('new') });

/**
 * The agent's memory API (bearer auth comes from the scope it is registered in):
 * `POST /memory/search`, `GET /memory/stats`, `GET /memory/items`, `DELETE /memory/items/:id`,
 * `GET /memory/export` (JSON lines), `POST /memory/import` (JSON lines), `GET /memory/doctor`.
 */
export function memoryRoutes(memory: () => MemoryEngine) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addContentTypeParser(
      ['application/x-ndjson', 'application/jsonl', 'text/plain'],
      { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );

    app.post('/memory/search', async (request) => {
      const { hierarchical, ...search } = parseRequest(searchBody, request.body ?? {});
      const engine = memory();
      return hierarchical ? engine.searchHierarchical(search) : engine.search(search);
    });

    app.get('/memory/stats', async () => memory().stats());

    app.get('/memory/items', async (request) => {
      const query = parseRequest(listQuery, request.query, 'query');
      const items = memory().list({
        limit: query.limit,
        offset: query.offset,
        includeSuperseded: query.history === 'true',
        ...(query.scope ? { scopes: [query.scope] } : {}),
        ...(query.category ? { categories: [query.category] } : {}),
      });
      return { items };
    });

    app.delete('/memory/items/:id', async (request, reply) => {
      memory().delete(parseRequest(idParams, request.params, 'params').id);
      return reply.code(204).send();
    });

    app.get('/memory/export', async (_request, reply) => {
      const lines = [...memory().exportJsonl()];
      return reply.type('application/x-ndjson').send(lines.join(''));
    });

    app.post('/memory/import', { bodyLimit: IMPORT_BODY_LIMIT_BYTES }, async (request) => {
      if (typeof request.body !== 'string') {
        throw new OpenLegionError(
          'REQUEST_INVALID',
          'send the import as application/x-ndjson (one item per line)',
        );
      }
      return memory().importJsonl(request.body, parseRequest(importQuery, request.query, 'query'));
    });

    app.get('/memory/doctor', async () => memory().doctor());
  };
}
