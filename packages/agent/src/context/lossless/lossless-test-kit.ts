import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, openDatabase } from '@openlegion/infra/sqlite';
import { pino } from 'pino';
import { ConversationStore, type StoredMessage } from '../../conversation-store.js';
import type { LlmMessage } from '../context-manager.js';
import type { FastTierCall } from '../fast-tier.js';
import type { LosslessSettings } from './lossless-settings.js';

/** Small constants so a few hundred short messages build a deep DAG in a unit test. */
export const SMALL_SETTINGS: LosslessSettings = {
  summariseAt: 0.75,
  minOutsideTokens: 400,
  forceAt: 0.9,
  freshTailMessages: 8,
  leafChunkTokens: 300,
  leafTargetTokens: 120,
  condensedTargetTokens: 100,
  leafFanout: 8,
  condensedFanout: 4,
  minFanout: 2,
};

/** A conversation store on a temporary folder, and a second connection for the lcm side. */
export function openStores(): { conversations: ConversationStore; db: Database; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lcm-'));
  const conversations = ConversationStore.open(dir);
  return { conversations, db: openDatabase(join(dir, 'agent.db')), dir };
}

/** Warnings a test can read (pino JSON lines), and the logger writing them. */
export function captureLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/**
 * The scripted fast tier: keeps only the first sentence of each transcript line (so a fact stated
 * later in a message is not carried by the summary), and counts its calls.
 */
export function firstSentenceTier(): FastTierCall & { calls: number } {
  const state = { calls: 0 };
  const call: FastTierCall = async ({ user }) => {
    state.calls++;
    return user
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (line.match(/^[^.!?]*[.!?]?/)?.[0] ?? line).slice(0, 60))
      .slice(0, 6)
      .join('\n');
  };
  return Object.assign(call, {
    get calls() {
      return state.calls;
    },
  });
}

/** Turn `i` of a deterministic chat: a user line (with a fact when given) and a reply. */
export function chatTurn(index: number, fact?: string): StoredMessage[] {
  const filler = `We keep working through part ${index} of the plan with the usual checks and notes.`;
  return [
    { role: 'user', content: `Turn ${index} begins here. ${fact ?? filler} ${filler}` },
    { role: 'assistant', content: `Noted turn ${index}. ${filler}` },
  ];
}

/** A tool round: an assistant call and its result. */
export function toolRound(index: number): StoredMessage[] {
  const id = `call_${index}`;
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id, type: 'function', function: { name: 'read_file', arguments: `{"path":"f${index}"}` } },
      ],
    },
    { role: 'tool', tool_call_id: id, content: `Contents of file ${index}. Line two of the file.` },
  ];
}

export const SYSTEM: LlmMessage = { role: 'system', content: 'You are Quill. Be brief.' };
