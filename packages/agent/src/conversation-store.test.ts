import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from './conversation-store.js';

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

  it('creates a missing data dir', () => {
    const nested = join(dataDir, 'deeper', 'still');
    const other = ConversationStore.open(nested);
    other.append('c', [{ role: 'user', content: 'x' }]);
    expect(other.conversationCount()).toBe(1);
    other.close();
  });
});
