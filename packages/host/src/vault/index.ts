export { VAULT_FILE, VAULT_KEY_ENV, VAULT_KEY_FILE, Vault, type VaultListing } from './vault.js';
export { hostSecrets } from './vault-secrets.js';
