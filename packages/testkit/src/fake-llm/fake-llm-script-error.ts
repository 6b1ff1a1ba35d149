/**
 * Thrown when a fake-llm script cannot be read, parsed or validated.
 *
 * The message names the offending field (`rules[2].reply: give text, chunks or tool_calls`);
 * `details.issues` lists every problem found.
 */
export class FakeLlmScriptError extends Error {
  readonly code = 'FAKE_LLM_SCRIPT_INVALID';
  readonly retryable = false;
  readonly details: { source: string; issues: string[] };

  constructor(source: string, issues: string[], options?: { cause?: unknown }) {
    super(`invalid fake-llm script (${source}): ${issues.join('; ')}`, options);
    this.name = new.target.name;
    this.details = { source, issues };
  }

  toJSON(): { code: string; message: string; details: { source: string; issues: string[] } } {
    return { code: this.code, message: this.message, details: this.details };
  }
}
