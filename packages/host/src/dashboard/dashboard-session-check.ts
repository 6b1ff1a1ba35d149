import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyRequest } from 'fastify';
import type { Caller, SessionCheck } from '../auth/index.js';
import { checkBrowserRequest, readCookie, SAFE_METHODS } from './browser-guard.js';
import { csrfMatches, type OperatorSessions } from './operator-sessions.js';

/** The header a dashboard page sends its session's CSRF token in, on every change. */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The session cookie's name carries the port: cookies are shared by every port of a host name, so
 * two meshes on one machine would otherwise sign each other's browsers out.
 */
export function sessionCookieName(port: number): string {
  return `openlegion_session_${port}`;
}

/**
 * The operator, proven by a dashboard session cookie: only on the loopback listener, from an allowed
 * Host and Origin, and for a change only with the session's CSRF token. Never an agent: a session is
 * only ever opened with the operator token.
 */
export function dashboardSessionCheck(options: {
  sessions: OperatorSessions;
  cookie: string;
  hosts: ReadonlySet<string>;
}): SessionCheck {
  return {
    callerOf(request: FastifyRequest): Caller | undefined {
      const id = readCookie(request.headers.cookie, options.cookie);
      if (id === undefined) return undefined;
      checkBrowserRequest(request, options.hosts);
      const session = options.sessions.find(id);
      if (!session) {
        throw new OpenLegionError(
          'DASHBOARD_SESSION_INVALID',
          'your dashboard session has expired or was signed out; sign in again with the operator token',
        );
      }
      if (!SAFE_METHODS.has(request.method)) {
        const presented = request.headers[CSRF_HEADER];
        if (typeof presented !== 'string' || !csrfMatches(session, presented)) {
          throw new OpenLegionError(
            'DASHBOARD_CSRF_MISSING',
            `this change was sent without the session's CSRF token (header ${CSRF_HEADER}); reload the dashboard`,
          );
        }
      }
      return { kind: 'operator', via: 'dashboard' };
    },
  };
}
