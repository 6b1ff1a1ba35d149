import type { SecretSource } from '../secrets/index.js';
import { Vault } from './vault.js';

/**
 * The host's secret source: `env:NAME` from the host's environment, `vault:NAME` from the encrypted
 * vault in the data dir (never from the environment). The vault is opened at the first `vault:`
 * lookup, so a mesh that uses none needs no key.
 */
export function hostSecrets(options: {
  dataDir: string;
  env: NodeJS.ProcessEnv;
}): SecretSource & { vault: Vault } {
  const vault = new Vault(options);
  return {
    vault,
    lookup: ({ scheme, name }) => (scheme === 'env' ? options.env[name] || undefined : vault.get(name)),
    howToSet: ({ scheme, name }) =>
      scheme === 'env'
        ? `export ${name} in the host environment`
        : `store it with: openlegion vault set ${name}`,
  };
}
