/** Short lines a reply shows besides the agent's text, as Markdown that renders them verbatim. */

const TOOL_ARGUMENT_MAX = 40;
const ERROR_MESSAGE_MAX = 300;

/** Backslash-escape Markdown's punctuation so that `text` renders exactly as written. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, '\\$&');
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The first scalar argument of a tool call, for a one-line summary (`read_file(notes.md)`). */
function firstArgument(input: unknown): string {
  if (input === null || input === undefined) return '';
  if (typeof input !== 'object') return String(input);
  for (const value of Object.values(input)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      return String(value);
  }
  return Object.keys(input).length > 0 ? '…' : '';
}

/** `⚙ read_file(notes.md)` for a tool the agent started. */
export function toolLine(name: string, input: unknown): string {
  return `⚙ ${escapeMarkdown(`${name}(${shorten(firstArgument(input), TOOL_ARGUMENT_MAX)})`)}`;
}

/** `⚠ read_file failed` for a tool that answered with an error. */
export function toolFailedLine(name: string): string {
  return `⚠ ${escapeMarkdown(`${name} failed`)}`;
}

/** A short error the user can act on; the code stays in the host log. */
export function errorLine(message: string): string {
  return `⚠ ${escapeMarkdown(shorten(message, ERROR_MESSAGE_MAX))}`;
}

export function noticeLine(message: string): string {
  return `_${escapeMarkdown(shorten(message, ERROR_MESSAGE_MAX))}_`;
}

/** `/debug` only: the model and tokens of a turn. */
export function usageLine(model: string, promptTokens: number, completionTokens: number): string {
  return `_${escapeMarkdown(`${model} · ${promptTokens} in, ${completionTokens} out`)}_`;
}
