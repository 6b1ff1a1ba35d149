import { z } from 'zod';
import type { DeepReadonly } from './deep-readonly.js';
import { globPatternSchema } from './pattern-bounds.js';

/**
 * `agents.NAME.permissions.credentials`: each vault credential an agent may use, bound to the hosts
 * it may be sent to and the places in a request it may fill. The host refuses `$CRED{NAME}`
 * anywhere else, so a prompt-injected agent cannot carry a secret to a host that would show it.
 *
 * ```yaml
 * credentials:
 *   GITHUB_TOKEN: { hosts: [api.github.com], in: header:authorization }
 *   TELEGRAM_BOT_TOKEN: { hosts: [api.telegram.org], in: path }
 * ```
 */

/** A vault name as `$CRED{NAME}` writes it. */
export const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A place in a request: `header:<name>` (the header's name in any case), `query:<name>` (one query
 * parameter), `body`, or `path` (the URL's path, for APIs that take the token there, like
 * Telegram's `/bot<token>/`).
 */
export type CredentialPlace = `header:${string}` | `query:${string}` | 'body' | 'path';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The place `text` names, normalised (header names lower-cased), or undefined when it names none. */
function credentialPlace(text: string): CredentialPlace | undefined {
  if (text === 'body' || text === 'path') return text;
  if (text.startsWith('header:') && HEADER_NAME.test(text.slice(7)))
    return `header:${text.slice(7).toLowerCase()}`;
  if (text.startsWith('query:') && text.length > 6) return `query:${text.slice(6)}`;
  return undefined;
}

/** One place or a list of them, normalised to a list. */
const credentialPlaces = z
  .union([z.string(), z.array(z.string()).min(1, 'name at least one place')], {
    error: 'use header:<name>, query:<name>, body or path, or a list of them',
  })
  .transform((given, ctx) =>
    (typeof given === 'string' ? [given] : given).map((text) => {
      const place = credentialPlace(text);
      if (place) return place;
      ctx.addIssue({ code: 'custom', message: `"${text}": use header:<name>, query:<name>, body or path` });
      return z.NEVER;
    }),
  );

/** Host names or globs (`api.github.com`, `*.example.com`): no scheme, port or path; bounded like every glob. */
const hostPattern = globPatternSchema
  .regex(/^[A-Za-z0-9.*?:[\]-]+$/, 'use a host name or a glob like *.example.com (no scheme, port or path)')
  .transform((host) => host.toLowerCase());

const credentialGrantSchema = z
  .object(
    {
      /** Where the credential may be sent; nowhere else. */
      hosts: z.array(hostPattern).min(1, 'name at least one host'),
      /** Where in a request it may go. */
      in: credentialPlaces,
    },
    {
      error:
        'bind the credential to its hosts and place: { hosts: [api.example.com], in: header:authorization }',
    },
  )
  .strict();

/** Example host for the bound form a refused list suggests. */
const exampleHost = (name: string) => (name.startsWith('GITHUB') ? 'api.github.com' : '<host>');

/**
 * The message for today's bare list (`credentials: [GITHUB_TOKEN]`): a grant by name alone could
 * be sent anywhere, so each name is shown in the bound form to copy.
 */
export function unboundCredentialsMessage(names: readonly unknown[]): string {
  const shown = names.filter(
    (name): name is string => typeof name === 'string' && CREDENTIAL_NAME.test(name),
  );
  const grants = (shown.length > 0 ? shown : ['GITHUB_TOKEN']).map(
    (name) => `${name}: { hosts: [${exampleHost(name)}], in: header:authorization }`,
  );
  return `bind each credential to its hosts and place, e.g. credentials: { ${grants.join(', ')} }`;
}

export const credentialGrantsSchema = z
  .record(
    z.string().regex(CREDENTIAL_NAME, 'use a vault name: letters, digits and "_", not starting with a digit'),
    credentialGrantSchema,
    {
      error: (issue) => (Array.isArray(issue.input) ? unboundCredentialsMessage(issue.input) : undefined),
    },
  )
  .default({});

/** One agent's credential grants, by vault name. */
export type CredentialGrants = DeepReadonly<z.infer<typeof credentialGrantsSchema>>;
export type CredentialGrant = DeepReadonly<z.infer<typeof credentialGrantSchema>>;
