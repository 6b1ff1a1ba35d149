export { PAIRING_CODE_ALPHABET, PAIRING_CODE_LENGTH } from '../core/pairing-code.js';
