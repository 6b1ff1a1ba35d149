import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';
import { openDatabase } from './open-database.js';

describe('GroupCommit', () => {
  it('commits writes submitted together in one transaction; a failing one rolls back alone', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (n INTEGER NOT NULL)');
    const commits = new GroupCommit(db);
    const insert = db.prepare('INSERT INTO t (n) VALUES (?)');
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, n) =>
        commits.submit(() => {
          insert.run(n);
          if (n === 3) throw new Error('three fails');
          return n * 10;
        }),
      ),
    );
    expect(results.map((result) => (result.status === 'fulfilled' ? result.value : 'rejected'))).toEqual([
      0,
      10,
      20,
      'rejected',
      40,
      50,
      60,
      70,
      80,
      90,
    ]);
    expect(db.prepare('SELECT n FROM t ORDER BY n').pluck().all()).toEqual([0, 1, 2, 4, 5, 6, 7, 8, 9]);
    expect(db.inTransaction).toBe(false);
    db.close();
  });

  it('runs a later submission in a new batch after the first committed', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (n INTEGER NOT NULL)');
    const commits = new GroupCommit(db);
    await commits.submit(() => db.prepare('INSERT INTO t VALUES (1)').run());
    await commits.submit(() => db.prepare('INSERT INTO t VALUES (2)').run());
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
    db.close();
  });

  it('opens mesh-style databases with the synchronous level asked for', () => {
    const full = openDatabase(':memory:', { synchronous: 'FULL' });
    expect(full.pragma('synchronous', { simple: true })).toBe(2);
    full.close();
  });
});
