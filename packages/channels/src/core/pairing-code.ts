import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/** Letters and digits that cannot be mistaken for each other: no 0/O, 1/I/L. */
export const PAIRING_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 8;

/** A fresh code: {@link PAIRING_CODE_LENGTH} characters drawn with `crypto.randomInt`. */
export function generatePairingCode(): string {
  let code = '';
  for (let index = 0; index < PAIRING_CODE_LENGTH; index++) {
    code += PAIRING_CODE_ALPHABET[randomInt(PAIRING_CODE_ALPHABET.length)];
  }
  return code;
}

/**
 * What a user typed, as a code: upper case, spaces and dashes dropped (`abcd-2345` works); undefined
 * when it cannot be a code at all.
 */
export function normalizePairingCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== PAIRING_CODE_LENGTH) return undefined;
  for (const char of code) if (!PAIRING_CODE_ALPHABET.includes(char)) return undefined;
  return code;
}

/**
 * Codes are stored hashed: mesh.db never holds one a reader could use. Salted by channel, so a code
 * made for one platform never pairs on another.
 */
export function hashPairingCode(code: string, channel = 'telegram'): Buffer {
  return createHash('sha256').update(`openlegion-${channel}-pairing:${code}`).digest();
}

/** Whether `candidate` matches any of `stored`, in time that does not depend on where they differ. */
export function matchesAnyHash(candidate: Buffer, stored: readonly Buffer[]): Buffer | undefined {
  let match: Buffer | undefined;
  for (const hash of stored) {
    if (hash.length === candidate.length && timingSafeEqual(hash, candidate)) match ??= hash;
  }
  return match;
}
