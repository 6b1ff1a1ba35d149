import { FakeClock } from '@openlegion/infra/clock';
import { createLocalEmbedder } from '@openlegion/memory';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { SharedMemoryStore } from './shared-memory-store.js';
import { SQUAD_COMPRESS_EVERY_MS, scheduleSquadCompression } from './squad-compression.js';

const DAY_MS = 86_400_000;
const stores: SharedMemoryStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function storeOn(clock: FakeClock): SharedMemoryStore {
  const store = new SharedMemoryStore({
    file: ':memory:',
    embedder: createLocalEmbedder(),
    clock,
    itemsPerAgent: 1_000,
  });
  store.open();
  stores.push(store);
  return store;
}

const episodic = (content: string) => ({ content, category: 'episodic' });

describe('scheduled squad compression', () => {
  it('compresses episodic sessions older than 7 days into one line each, daily, and leaves the rest', async () => {
    const clock = new FakeClock(Date.parse('2026-11-01T09:00:00Z'));
    const store = storeOn(clock);
    await store.save('squad:research', 'lead', episodic('[RESEARCHER] Tides first. (session sub-old)'));
    await store.save('squad:research', 'lead', episodic('[ALL] Cite sources. (session sub-old)'));
    await store.save('squad:research', null, { content: 'We review in pairs.', category: 'process' });
    await store.save('global', null, episodic('[ALL] not a squad (session sub-g1)'));
    await store.save('global', null, episodic('[ALL] still not (session sub-g1)'));
    const stop = scheduleSquadCompression({ store, clock, logger: pino({ level: 'silent' }) });

    await clock.advance(5 * DAY_MS); // a newer session, and runs that find nothing old enough
    await store.save('squad:research', 'lead', episodic('[RESEARCHER] Moon too. (session sub-new)'));
    await store.save('squad:research', 'lead', episodic('[ALL] Be brief. (session sub-new)'));
    expect(store.list('squad:research', 100, 0)).toHaveLength(5);

    await clock.advance(3 * DAY_MS); // the old session is 8 days old at the next daily run
    const contents = store.list('squad:research', 100, 0).map((item) => `${item.category}: ${item.content}`);
    expect(contents.sort()).toEqual(
      [
        'episodic: [RESEARCHER] Tides first.; [ALL] Cite sources. (session sub-old, 2026-11-01)',
        'episodic: [RESEARCHER] Moon too. (session sub-new)',
        'episodic: [ALL] Be brief. (session sub-new)',
        'process: We review in pairs.',
      ].sort(),
    );
    expect(store.list('global', 100, 0)).toHaveLength(2);

    stop();
    await clock.advance(10 * SQUAD_COMPRESS_EVERY_MS); // stopped: the new session stays as it is
    expect(store.list('squad:research', 100, 0)).toHaveLength(4);
  });
});
