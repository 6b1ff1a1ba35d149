import { describe, expect, it } from 'vitest';
import { mergeFacts, normalizeFacts } from './extracted-facts.js';

describe('normalizeFacts', () => {
  it('keeps well-formed facts, files unknown categories under entities and drops the rest', () => {
    expect(
      normalizeFacts([
        { key: ' deploy day ', value: 'Thursdays\nafter standup', category: 'Events' },
        { key: 'port', value: 6543, category: 'made-up' },
        { key: '', value: 'no key' },
        'not an object',
      ]),
    ).toEqual([
      { key: 'deploy day', value: 'Thursdays after standup', category: 'events' },
      { key: 'port', value: '6543', category: 'entities' },
    ]);
  });
});

describe('mergeFacts', () => {
  it('reports only new or changed facts and keeps the latest value per key', () => {
    const ledger = [{ key: 'Port', value: '6543', category: 'entities' }];
    const { ledger: merged, fresh } = mergeFacts(ledger, [
      { key: 'port', value: '6543', category: 'entities' },
      { key: 'owner', value: 'Bo', category: 'entities' },
      { key: 'owner', value: 'Bo Lind', category: 'entities' },
    ]);
    expect(fresh).toEqual([{ key: 'owner', value: 'Bo Lind', category: 'entities' }]);
    expect(merged.map((fact) => fact.value)).toEqual(['6543', 'Bo Lind']);
  });
});
