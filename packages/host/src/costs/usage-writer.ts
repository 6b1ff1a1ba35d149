import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { type Database, GroupCommit } from '@openlegion/infra/sqlite';

/** How long rows wait to cross to the writer thread together. */
const POST_BATCH_MS = 5;

/** Writes rows of one INSERT statement; `write` resolves once the row is committed. */
export interface UsageWriter {
  write(row: Record<string, unknown>): Promise<void>;
  /** Waits for the rows in flight, then lets go of the thread. */
  close(): Promise<void>;
}

/**
 * The writer thread: its own connection to the same mesh.db (WAL, the main connection's
 * `synchronous`), one transaction per batch of rows that arrived together (a savepoint per row),
 * each row acknowledged after its batch's COMMIT. Plain CommonJS source, so it runs the same from the sources (tests) and dist.
 */
const WRITER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = ' + workerData.synchronous);
const insert = db.prepare(workerData.sql);
// A savepoint per row: a row the database refuses fails alone, not its batch.
const one = db.transaction((row) => insert.run(row));
const commit = db.transaction((batch) => batch.map((message) => {
  try { one(message.row); return null; } catch (error) { return String(error && error.message || error); }
}));
let queue = [];
parentPort.on('message', (text) => {
  if (queue.length === 0) setImmediate(flush);
  for (const message of JSON.parse(text)) queue.push(message);
});
function flush() {
  const batch = queue;
  queue = [];
  const ids = batch.map((message) => message.id);
  try {
    parentPort.postMessage({ ids, errors: commit.immediate(batch) });
  } catch (error) {
    parentPort.postMessage({ ids, error: String(error && error.message || error) });
  }
}
`;

/**
 * A writer for `sql` into `db`. For a database file, the commits (a disk sync each with
 * `synchronous = FULL`) happen on a thread of their own, so an LLM call's bookkeeping never holds
 * up the event loop that other calls are streaming through; durability is the same. An in-memory
 * database (tests) cannot be shared with a thread: there rows are group-committed in process.
 */
export function createUsageWriter(db: Database, sql: string): UsageWriter {
  if (db.memory) return inProcessWriter(db, sql);
  return threadWriter(db, sql);
}

function inProcessWriter(db: Database, sql: string): UsageWriter {
  const commits = new GroupCommit(db);
  const insert = db.prepare(sql);
  return {
    write: (row) =>
      commits.submit(() => {
        insert.run(row);
      }),
    close: async () => {},
  };
}

function threadWriter(db: Database, sql: string): UsageWriter {
  const synchronous = db.pragma('synchronous', { simple: true }) === 2 ? 'FULL' : 'NORMAL';
  const worker = new Worker(WRITER_THREAD, {
    eval: true,
    workerData: {
      file: db.name,
      synchronous,
      sql,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  });
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let broken: Error | undefined;
  // Rows written within a few milliseconds cross to the thread as one message (JSON text: cheaper
  // to pass than a structured clone per row); a message costs more than the rows in it.
  let outbox: Array<{ id: number; row: Record<string, unknown> }> = [];
  const post = () => {
    const batch = outbox;
    outbox = [];
    worker.postMessage(JSON.stringify(batch));
  };
  let drained: (() => void) | undefined;
  const settled = () => {
    if (pending.size > 0) return;
    worker.unref();
    drained?.();
  };
  worker.on('message', (message: { ids: number[]; errors?: Array<string | null>; error?: string }) => {
    message.ids.forEach((id, index) => {
      const waiter = pending.get(id);
      pending.delete(id);
      const error = message.error ?? message.errors?.[index];
      if (error) waiter?.reject(new Error(error));
      else waiter?.resolve();
    });
    settled();
  });
  worker.on('error', (error) => {
    broken = error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
    settled();
  });
  // An idle writer does not keep the process alive; one with rows in flight does, until they are
  // committed (unref after the listeners: adding a 'message' listener refs the worker again).
  worker.unref();
  return {
    write(row) {
      if (broken) return Promise.reject(broken);
      const id = ++nextId;
      if (pending.size === 0) worker.ref();
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        if (outbox.length === 0) setTimeout(post, POST_BATCH_MS);
        outbox.push({ id, row });
      });
    },
    async close() {
      if (pending.size > 0) await new Promise<void>((resolve) => (drained = resolve));
      await worker.terminate();
    },
  };
}
