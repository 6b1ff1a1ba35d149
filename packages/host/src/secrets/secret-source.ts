import { OpenLegionError } from '@openlegion/protocol';

/** A parsed secret reference from mesh.yaml: `vault:NAME` or `env:NAME`. */
export interface SecretReference {
  scheme: 'vault' | 'env';
  name: string;
}

/**
 * Where the host finds the value behind a secret reference. Everything that needs a secret (LLM
 * provider keys, channel tokens, `$CRED{NAME}` substitution) asks a source; nothing reads
 * `process.env` or the vault file directly. Values never leave the host.
 */
export interface SecretSource {
  /** The value behind `reference`, or undefined when the source has no such entry. */
  lookup(reference: SecretReference): string | undefined;
  /** Where a missing entry should be put, for error messages (never a value). */
  howToSet(reference: SecretReference): string;
}

const REFERENCE_PATTERN = /^(vault|env):([A-Za-z_][A-Za-z0-9_]*)$/;

/** Parse `vault:NAME` / `env:NAME`; throws CONFIG_INVALID naming the bad reference. */
export function parseSecretReference(reference: string): SecretReference {
  const match = REFERENCE_PATTERN.exec(reference);
  if (!match?.[1] || !match[2]) {
    throw new OpenLegionError(
      'CONFIG_INVALID',
      `"${reference}" is not a secret reference; use vault:NAME or env:NAME`,
    );
  }
  return { scheme: match[1] as SecretReference['scheme'], name: match[2] };
}

/**
 * The value behind `reference`, or a `missing` error built by the caller (which knows what the
 * secret is for) with the source's hint on how to set it.
 */
export function requireSecret(
  source: SecretSource,
  reference: string,
  missing: (hint: string) => OpenLegionError,
): string {
  const parsed = parseSecretReference(reference);
  const value = source.lookup(parsed);
  if (!value) throw missing(source.howToSet(parsed));
  return value;
}

/**
 * Secrets from the host's environment: `env:NAME` reads `NAME`. Until the encrypted vault is
 * configured, `vault:NAME` reads `NAME` from the environment too.
 */
export function environmentSecrets(env: NodeJS.ProcessEnv): SecretSource {
  return {
    lookup: ({ name }) => env[name] || undefined,
    howToSet: ({ name }) => `export ${name} in the host environment`,
  };
}
