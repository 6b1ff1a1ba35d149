import { openDatabase } from '@openlegion/infra/sqlite';
import { describe, expect, it } from 'vitest';
import { type ContextState, ContextStateStore, EMPTY_CONTEXT_STATE } from './context-state-store.js';

const state: ContextState = {
  ...EMPTY_CONTEXT_STATE,
  covered: 12,
  anchor: 'abc',
  userSummary: 'Ada.',
  facts: [{ key: 'port', value: '6543', category: 'entities' }],
  cycle: 2,
  flushedCycle: 2,
};

describe('ContextStateStore', () => {
  it('keeps each conversation state apart and gives a fresh one for an unknown conversation', () => {
    const store = new ContextStateStore(openDatabase(':memory:'));
    store.save('a', state, 1);
    expect(store.load('a')).toEqual(state);
    expect(store.load('b')).toEqual(EMPTY_CONTEXT_STATE);
  });

  it('migrates once, so a second store on the same database reads what the first wrote', () => {
    const db = openDatabase(':memory:');
    new ContextStateStore(db).save('a', state, 1);
    expect(new ContextStateStore(db).load('a').covered).toBe(12);
  });

  it('starts over from a row it cannot read instead of failing the turn', () => {
    const db = openDatabase(':memory:');
    const store = new ContextStateStore(db);
    db.prepare("INSERT INTO context_state VALUES ('a', '{not json', 1), ('b', '{\"covered\":-1}', 1)").run();
    expect(store.load('a')).toEqual(EMPTY_CONTEXT_STATE);
    expect(store.load('b')).toEqual(EMPTY_CONTEXT_STATE);
  });
});
