import { modelRef } from '@openlegion/protocol';
import type { ToolProfile } from '../tool-registry/tool-profiles.js';
import type { PromptMode } from './prompt-sections.js';

/** What the directives at the start of a message ask for, for that turn only. */
export interface Directives {
  /** The message without its directives: what the model sees and what is stored. */
  message: string;
  mode: PromptMode;
  /** A tool profile for this turn (within the tools the agent has). */
  profile?: ToolProfile;
  think: boolean;
  verbose: boolean;
  reasoning: boolean;
  /** Compact the conversation before answering. */
  compact: boolean;
  /** `/model`: show the conversation's model, switch it (kept for the conversation) or reset it. */
  model?: ModelDirective;
  /** The directives recognised, as written (for a notice). */
  applied: string[];
}

/** What `/model` asks for. */
export type ModelDirective = { action: 'show' } | { action: 'reset' } | { action: 'set'; model: string };

const PROFILES: readonly ToolProfile[] = ['minimal', 'coding', 'messaging', 'full'];

/**
 * Read directives (`/think`, `/model [NAME|reset]`, `/verbose`, `/reasoning`, `/quiet`, `/silent`, `/compact`, `/minimal`,
 * `/coding`, `/messaging`, `/full`) from the start of a message; the first word that is not one
 * ends them, so a path like `/etc/hosts` later in the text is never taken for one.
 *
 * @example
 * parseDirectives('/quiet /coding fix the test') // { message: 'fix the test', mode: 'minimal', profile: 'coding', … }
 */
export function parseDirectives(text: string): Directives {
  const result: Directives = {
    message: text,
    mode: 'full',
    think: false,
    verbose: false,
    reasoning: false,
    compact: false,
    applied: [],
  };
  let rest = text.trimStart();
  for (;;) {
    const match = /^\/([a-z]+)(?=\s|$)/i.exec(rest);
    const name = match?.[1]?.toLowerCase();
    if (match === null || name === undefined) break;
    if (name === 'model') {
      rest = rest.slice(match[0].length).trimStart();
      const argument = modelArgument(rest);
      result.model = argument.directive;
      result.applied.push(argument.word === undefined ? '/model' : `/model ${argument.word}`);
      if (argument.word !== undefined) rest = rest.slice(argument.word.length).trimStart();
      continue;
    }
    if (!apply(result, name)) break;
    result.applied.push(`/${name}`);
    rest = rest.slice(match[0].length).trimStart();
  }
  if (result.applied.length > 0) result.message = rest;
  return result;
}

function apply(result: Directives, name: string): boolean {
  if (name === 'think') result.think = true;
  else if (name === 'verbose') result.verbose = true;
  else if (name === 'reasoning') result.reasoning = true;
  else if (name === 'quiet') result.mode = 'minimal';
  else if (name === 'silent') result.mode = 'none';
  else if (name === 'compact') result.compact = true;
  else if ((PROFILES as readonly string[]).includes(name)) result.profile = name as ToolProfile;
  else return false;
  return true;
}

/**
 * The word after `/model` is its argument only when it names a model (a tier or provider/model) or
 * is `reset`; any other word starts the message, so `/model which one are you?` shows the model and
 * keeps the question whole.
 */
function modelArgument(rest: string): { directive: ModelDirective; word?: string } {
  const word = /^\S+/.exec(rest)?.[0];
  if (word === undefined) return { directive: { action: 'show' } };
  if (word.toLowerCase() === 'reset') return { directive: { action: 'reset' }, word };
  if (modelRef.safeParse(word).success) return { directive: { action: 'set', model: word }, word };
  return { directive: { action: 'show' } };
}
