import { errorBody, isOpenLegionError, type OpenLegionError } from '@openlegion/protocol';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Every error leaves as the protocol error body. OpenLegionErrors keep their code and status;
 * fastify's own 4xx (bad JSON, body too large) become REQUEST_INVALID; anything else is a 500
 * INTERNAL, logged here once.
 */
export function registerErrorHandling(app: FastifyInstance, options: { logName?: string } = {}): void {
  const fault = `an unexpected fault; see the ${options.logName ?? 'host'} log`;
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody('NOT_FOUND', `no route ${request.method} ${request.url}`));
  });
  app.setErrorHandler((error: FastifyError | OpenLegionError, request, reply) => {
    if (isOpenLegionError(error)) {
      request.log.debug({ code: error.code, err: error.message }, 'request refused');
      return reply.code(error.status).send(error.toJSON());
    }
    if (isClientFault(error)) {
      return reply.code(error.statusCode ?? 400).send(errorBody('REQUEST_INVALID', error.message));
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.code(500).send(errorBody('INTERNAL', fault));
  });
}

/**
 * fastify's `frameworkErrors` option: a URL it cannot decode or a path parameter past
 * `maxParamLength` is refused before any route runs; it still leaves as the protocol's error body.
 *
 * @example Fastify({ frameworkErrors: refuseFrameworkError })
 */
export function refuseFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const status = isClientFault(error) ? (error.statusCode ?? 400) : 400;
  void reply.code(status).send(errorBody('REQUEST_INVALID', error.message));
}

function isClientFault(error: FastifyError | Error): error is FastifyError {
  const { statusCode } = error as FastifyError;
  return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500;
}
