import { OpenLegionError } from '@openlegion/protocol';

/** What Slack said when it refused a call (`ok: false`): its error code and, for missing_scope, the scope. */
export interface SlackRefusal {
  error: string;
  needed?: string;
}

/** The refusal inside a Web API client error (WebAPIPlatformError), if it is one. */
export function slackRefusalOf(error: unknown): SlackRefusal | undefined {
  if (typeof error !== 'object' || error === null || !('data' in error)) return undefined;
  const data = error.data;
  if (typeof data !== 'object' || data === null || !('error' in data) || typeof data.error !== 'string')
    return undefined;
  const needed = 'needed' in data && typeof data.needed === 'string' ? data.needed : undefined;
  return { error: data.error, ...(needed ? { needed } : {}) };
}

/** Slack's answers that mean the token itself is no good (revoked, wrong, workspace gone). */
const TOKEN_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'team_disabled',
  'not_allowed_token_type',
]);

/**
 * A failed start, as the error a person can act on: a token Slack refuses (CHAN_TOKEN_REJECTED,
 * naming which token), a missing scope (CHAN_SCOPE_MISSING, naming it), another refusal
 * (CHAN_API_ERROR) or no answer (CHAN_UNREACHABLE).
 */
export function startError(error: unknown, token: 'bot' | 'app'): OpenLegionError {
  const refusal = slackRefusalOf(error);
  const field = token === 'bot' ? 'channels.slack.bot_token (xoxb-…)' : 'channels.slack.app_token (xapp-…)';
  if (refusal && TOKEN_ERRORS.has(refusal.error)) {
    return new OpenLegionError(
      'CHAN_TOKEN_REJECTED',
      `Slack refused the ${token === 'bot' ? 'bot' : 'app-level'} token (${refusal.error}); check ${field}`,
      { details: { platform: 'slack', slack_error: refusal.error } },
    );
  }
  if (refusal?.error === 'missing_scope') return missingScope(refusal.needed ?? 'unknown');
  if (refusal) {
    return new OpenLegionError('CHAN_API_ERROR', `Slack refused the call (${refusal.error})`, {
      details: { platform: 'slack', slack_error: refusal.error },
    });
  }
  return new OpenLegionError('CHAN_UNREACHABLE', `Slack could not be reached: ${messageOf(error)}`, {
    cause: error,
  });
}

/** CHAN_SCOPE_MISSING naming the scope and where to add it. */
export function missingScope(scope: string): OpenLegionError {
  return new OpenLegionError(
    'CHAN_SCOPE_MISSING',
    `the Slack app lacks the bot scope ${scope}: add it under OAuth & Permissions, then reinstall the app`,
    { details: { platform: 'slack', scope } },
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
