import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes: every agent token and the operator token. */
export const TOKEN_BYTES = 32;

/** A fresh random token, base64url. */
export function generateToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * SHA-256 of a token; digests have equal length whatever the token, so comparing them leaks no
 * length. One-shot `hash` (no Hash object): every authenticated request computes one.
 */
export function tokenDigest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** Constant-time comparison of a presented token with a known digest. */
export function digestMatches(presented: Buffer, known: Buffer): boolean {
  return timingSafeEqual(presented, known);
}

const BEARER_PATTERN = /^Bearer\s+(\S+)\s*$/i;

/** The token of an `Authorization: Bearer <token>` header; undefined when absent or malformed. */
export function parseBearer(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER_PATTERN.exec(header)?.[1];
}
