import type { FastifyReply } from 'fastify';
import { CallAbort } from './call-abort.js';

/** A signal that aborts when the client closes the connection before the response finished. */
export function abortOnClientClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}

/** {@link abortOnClientClose} as a {@link CallAbort}: cheaper, for the LLM proxy's hot path. */
export function callAbortOnClientClose(reply: FastifyReply): CallAbort {
  const abort = new CallAbort();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort(new Error('the client closed the connection'));
  });
  return abort;
}
