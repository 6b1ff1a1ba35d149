import type { FastifyReply } from 'fastify';

/** A signal that aborts when the client closes the connection before the response finished. */
export function abortOnClientClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}
