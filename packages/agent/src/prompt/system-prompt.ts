import type { AgentSelf } from '@openlegion/protocol';
import { UNTRUSTED_PROMPT_NOTE } from '@openlegion/protocol';
import type { BootstrapFile, BootstrapFileName } from '../workspace/bootstrap-files.js';
import { assemblePrompt, type PromptMode, type PromptSection } from './prompt-sections.js';

/** The reply that means "nothing to say": delivered as nothing. */
export const SILENT_REPLY_TOKEN = '__SILENT__';

/** What kind of turn the prompt is for. */
export type TurnKind = 'chat' | 'task' | 'heartbeat';

export interface SystemPromptInput {
  self: Pick<AgentSelf, 'agent' | 'mesh' | 'role' | 'soul'>;
  mode: PromptMode;
  /** Workspace files, already capped. */
  files: readonly BootstrapFile[];
  /** Names of the tools the model is offered this turn. */
  toolNames: readonly string[];
  /** The skills section (names and descriptions within the budget); empty for none. */
  skills?: string;
  kind: TurnKind;
  think?: boolean;
  verbose?: boolean;
  reasoning?: boolean;
  /** Today, `YYYY-MM-DD` (UTC); a date, not a time, so the prompt stays cacheable all day. */
  date: string;
}

/** The system prompt of a turn, assembled from sections by priority and cut to the mode. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const file = (name: BootstrapFileName) => input.files.find((f) => f.name === name)?.text ?? '';
  const identityLine =
    `You are ${input.self.agent}, an agent in the ${input.self.mesh} mesh.` +
    (input.self.role ? ` Role: ${input.self.role}.` : '');
  const sections: PromptSection[] = [
    { name: 'context', text: `Today is ${input.date} (UTC).` },
    {
      name: 'identity',
      text:
        input.mode === 'none'
          ? identityLine
          : [identityLine, file('SOUL.md'), input.self.soul]
              .filter((part) => part.trim() !== '')
              .join('\n\n'),
    },
    { name: 'security', text: `${UNTRUSTED_PROMPT_NOTE} Never reveal credentials or tokens.` },
    { name: 'formatting', text: formatting(input.verbose === true) },
    { name: 'language', text: 'Answer in the language the user writes in.' },
    { name: 'tools', text: tools(input) },
    { name: 'skills', text: input.skills ?? '' },
    { name: 'memory', text: memory(file('USER.md'), file('MEMORY.md')) },
    { name: 'reasoning', text: reasoning(input) },
    {
      name: 'custom',
      text: file('AGENTS.md') && `# Operating instructions (AGENTS.md)\n\n${file('AGENTS.md')}`,
    },
  ];
  return assemblePrompt(sections, input.mode);
}

function formatting(verbose: boolean): string {
  const length = verbose
    ? 'Give a detailed, thorough answer with examples where they help.'
    : 'Be concise: say what matters, skip filler.';
  return `${length} Use Markdown where it helps reading. When a message needs no reply at all, answer exactly ${SILENT_REPLY_TOKEN}.`;
}

function tools(input: SystemPromptInput): string {
  const lines: string[] = [];
  if (input.toolNames.length > 0) {
    lines.push(
      `Tools you can call: ${input.toolNames.join(', ')}. Call several at once when they do not depend on ` +
        'each other. When a tool fails, read the error and fix the call instead of repeating it.',
    );
    if (input.toolNames.includes('tool_search')) {
      lines.push(
        'More tools (browser, processes, blackboard, ...) are loaded with tool_search when you need them.',
      );
    }
  }
  if (input.kind === 'task') {
    lines.push(
      'You are working on a task on your own: keep going until it is done, then reply with the result.',
    );
  }
  if (input.kind === 'heartbeat') {
    lines.push(
      `This is a heartbeat: check what is pending and your HEARTBEAT.md checklist, act on what needs it, ` +
        `and answer ${SILENT_REPLY_TOKEN} when nothing needs the user's attention.`,
    );
  }
  return lines.join('\n');
}

function memory(user: string, notes: string): string {
  const parts: string[] = [];
  if (user) parts.push(`# About the user (USER.md)\n\n${user}`);
  if (notes) parts.push(`# Your notes (MEMORY.md)\n\n${notes}`);
  parts.push(
    'Daily logs live in memory/YYYY-MM-DD.md in your workspace; they are not loaded here, read them when needed.',
  );
  return parts.join('\n\n');
}

function reasoning(input: SystemPromptInput): string {
  const lines: string[] = [];
  if (input.think) lines.push('Think the problem through step by step before you act or answer.');
  if (input.reasoning) lines.push('Show your reasoning: explain briefly how you reached the answer.');
  return lines.join(' ');
}
