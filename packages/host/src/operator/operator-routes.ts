import type { MeshStatus } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';

export interface OperatorRouteDeps {
  meshStatus: () => MeshStatus;
  onShutdown?: (() => void) | undefined;
}

/** The operator API (`/api/*`), used by the CLI with the operator token. */
export function registerOperatorRoutes(app: FastifyInstance, deps: OperatorRouteDeps): void {
  const auth = { auth: 'operator' } as const;

  app.get('/api/status', { config: auth }, async () => deps.meshStatus());

  app.post(
    '/api/shutdown',
    {
      config: auth,
      // After the 202 has gone out, so the caller hears back before the host closes.
      onResponse: async (_request, reply) => {
        if (reply.statusCode === 202) deps.onShutdown?.();
      },
    },
    async (_request, reply) => reply.code(202).send({ ok: true }),
  );
}
