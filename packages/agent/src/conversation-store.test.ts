import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@openlegion/infra/sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore, type StoredMessage, type StoredToolCall } from './conversation-store.js';

describe('ConversationStore', () => {
  let dataDir: string;
  let store: ConversationStore;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-store-'));
    store = ConversationStore.open(dataDir);
  });
  afterEach(() => {
    store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists messages in the order they were appended', () => {
    store.append('c1', [{ role: 'user', content: 'hi' }]);
    store.append('c1', [
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'how are you?' },
    ]);
    expect(store.list('c1').map((message) => message.content)).toEqual(['hi', 'hello', 'how are you?']);
  });

  it('keeps conversations apart', () => {
    store.append('c1', [{ role: 'user', content: 'one' }]);
    store.append('c2', [{ role: 'user', content: 'two' }]);
    expect(store.list('c2')).toEqual([{ role: 'user', content: 'two' }]);
  });

  it('lists nothing for an unknown conversation', () => {
    expect(store.list('nope')).toEqual([]);
  });

  it('counts the conversations that have messages', () => {
    store.append('c1', [{ role: 'user', content: 'one' }]);
    store.append('c1', [{ role: 'assistant', content: 'two' }]);
    store.append('c2', [{ role: 'user', content: 'three' }]);
    expect(store.conversationCount()).toBe(2);
  });

  it('keeps conversations when reopened on the same data dir', () => {
    store.append('c1', [{ role: 'user', content: 'remember me' }]);
    store.close();
    store = ConversationStore.open(dataDir);
    expect(store.list('c1')).toEqual([{ role: 'user', content: 'remember me' }]);
  });

  it('keeps a tool round: the assistant message with its tool calls, then the tool results', () => {
    const round: StoredMessage[] = [
      { role: 'user', content: 'count' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'counter', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'count=1' },
      { role: 'assistant', content: 'counted to 1' },
    ];
    store.append('c1', round);
    expect(store.list('c1')).toEqual(round);
  });

  it('keeps the text an assistant wrote beside its tool calls', () => {
    const call: StoredToolCall = { id: 'x', type: 'function', function: { name: 'f', arguments: '{"a":1}' } };
    store.append('c1', [{ role: 'assistant', content: 'let me look', tool_calls: [call] }]);
    expect(store.list('c1')).toEqual([{ role: 'assistant', content: 'let me look', tool_calls: [call] }]);
  });

  it('creates a missing data dir', () => {
    const nested = join(dataDir, 'deeper', 'still');
    const other = ConversationStore.open(nested);
    other.append('c', [{ role: 'user', content: 'x' }]);
    expect(other.conversationCount()).toBe(1);
    other.close();
  });

  it('keeps the messages of a store made before per-feature migrations (user_version 1)', () => {
    const legacyDir = join(dataDir, 'legacy');
    const db = openDatabase(join(legacyDir, 'agent.db'));
    db.exec(`CREATE TABLE messages (conversation_id TEXT NOT NULL, seq INTEGER NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('user', 'assistant')), content TEXT NOT NULL,
      created_at TEXT NOT NULL, PRIMARY KEY (conversation_id, seq)) WITHOUT ROWID`);
    db.prepare("INSERT INTO messages VALUES ('c', 1, 'user', 'from before', '2026-01-01')").run();
    db.pragma('user_version = 1');
    db.close();
    const upgraded = ConversationStore.open(legacyDir);
    expect(upgraded.list('c')).toEqual([{ role: 'user', content: 'from before' }]);
    upgraded.close();
  });

  it('refuses a store written by a newer agent, naming the file', () => {
    store.close();
    const db = openDatabase(join(dataDir, 'agent.db'));
    db.prepare("UPDATE schema_migrations SET version = 99 WHERE feature = 'conversations'").run();
    db.close();
    expect(() => ConversationStore.open(dataDir)).toThrow(
      /agent\.db has schema version 99 for "conversations"/,
    );
    store = ConversationStore.open(join(dataDir, 'fresh'));
  });

  it("keeps a conversation's /model choice across a reopen, until it is reset", () => {
    store.setModel('c1', 'fast');
    store.setModel('c1', 'openai/gpt-4.1');
    store.close();
    store = ConversationStore.open(dataDir);
    expect([store.modelOf('c1'), store.modelOf('c2')]).toEqual(['openai/gpt-4.1', undefined]);
    store.setModel('c1', undefined);
    expect(store.modelOf('c1')).toBeUndefined();
  });
});
