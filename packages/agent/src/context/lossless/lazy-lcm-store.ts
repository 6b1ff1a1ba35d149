import { type Database, openDatabase } from '@openlegion/infra/sqlite';
import type { Logger } from 'pino';
import { SummaryStore } from './summary-store.js';

/** A {@link SummaryStore} on its own connection, opened on first use (most starts never need it). */
export function lazyLcmStore(file: string, logger: Logger): { get: () => SummaryStore; close: () => void } {
  let db: Database | undefined;
  let store: SummaryStore | undefined;
  return {
    get: () => {
      if (!store) {
        db = openDatabase(file);
        store = new SummaryStore(db, logger);
      }
      return store;
    },
    close: () => {
      if (db?.open) db.close();
    },
  };
}
