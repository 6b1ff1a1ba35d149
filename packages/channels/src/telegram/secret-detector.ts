/**
 * Shapes of keys and tokens people paste by mistake. Keys never go through chat: a message that
 * matches is refused before it reaches an agent (the agent's transcript and the LLM provider would
 * otherwise hold it).
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-|or-)?[A-Za-z0-9_-]{20,}/, // OpenAI, Anthropic, OpenRouter
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{40,}/,
  /\bglpat-[A-Za-z0-9_-]{20,}/, // GitLab
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/, // Slack
  /\bAKIA[0-9A-Z]{16}\b/, // AWS access key id
  /\bAIza[0-9A-Za-z_-]{35}\b/, // Google API key
  /\b\d{6,12}:AA[0-9A-Za-z_-]{30,}\b/, // Telegram bot token
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(?:api[_-]?key|secret|token|password)\s*[:=]\s*\S{12,}/i,
];

/** A long run without spaces that mixes upper case, lower case and digits: most likely a key. */
const HIGH_ENTROPY_WORD = /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[A-Za-z0-9_\-+=.]{32,}$/;

/** Whether a chat message looks like it carries an API key or token. */
export function looksLikeSecret(text: string): boolean {
  if (SECRET_PATTERNS.some((pattern) => pattern.test(text))) return true;
  return text.split(/\s+/).some((word) => HIGH_ENTROPY_WORD.test(word));
}
