import { OpenLegionError } from '@openlegion/protocol';

/** `global`, or a kind and an id: `agent:<id>`, `project:<id>`, `user:<id>`, `squad:<id>`, `custom:<name>`. */
export const SCOPE_KINDS = ['agent', 'project', 'user', 'squad', 'custom'] as const;

const SCOPE_PATTERN = new RegExp(
  `^(?:global|(?:${SCOPE_KINDS.join('|')}):[A-Za-z0-9][A-Za-z0-9._@/-]{0,127})$`,
);

export const GLOBAL_SCOPE = 'global';

/** True when `scope` is a well-formed scope string. */
export function isScope(scope: string): boolean {
  return SCOPE_PATTERN.test(scope);
}

/**
 * Check a scope string and return it.
 *
 * @throws {OpenLegionError} `MEM_SCOPE_INVALID` naming the scope and the accepted forms.
 * @example parseScope('project:site') // 'project:site'
 */
export function parseScope(scope: string): string {
  if (isScope(scope)) return scope;
  throw new OpenLegionError(
    'MEM_SCOPE_INVALID',
    `unknown scope "${scope.slice(0, 80)}"; use global or ${SCOPE_KINDS.map((kind) => `${kind}:<id>`).join(', ')}`,
    { details: { scope: scope.slice(0, 200) } },
  );
}

/** The scopes an agent sees by default: its own (where its facts go) and the global one. */
export function defaultScopes(agentId: string): string[] {
  return [parseScope(`agent:${agentId}`), GLOBAL_SCOPE];
}
