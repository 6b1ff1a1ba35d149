export {
  environmentSecrets,
  parseSecretReference,
  requireSecret,
  type SecretReference,
  type SecretSource,
} from './secret-source.js';
