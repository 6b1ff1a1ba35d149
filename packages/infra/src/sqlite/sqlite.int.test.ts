import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, schemaVersion, transaction } from './index.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'infra-sqlite-')), 'nested', 'test.db');

describe('openDatabase', () => {
  it('creates the directory and opens the file in WAL mode with foreign keys on', () => {
    const db = openDatabase(tempFile());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });
});

describe('migrate', () => {
  const notes = { feature: 'notes', steps: ['CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)'] };
  const tags = { feature: 'tags', steps: ['CREATE TABLE tags (name TEXT PRIMARY KEY)'] };

  it('tracks each feature on its own, so features added in any order never collide', () => {
    const file = tempFile();
    const first = openDatabase(file);
    migrate(first, [notes]);
    first.close();
    const second = openDatabase(file);
    migrate(second, [tags, notes]);
    expect(schemaVersion(second, 'notes')).toBe(1);
    expect(schemaVersion(second, 'tags')).toBe(1);
    second.close();
  });

  it('applies only the steps that are new, and re-running changes nothing', () => {
    const db = openDatabase(':memory:');
    migrate(db, [notes]);
    db.prepare('INSERT INTO notes (text) VALUES (?)').run('kept');
    const grown = {
      ...notes,
      steps: [...notes.steps, 'ALTER TABLE notes ADD COLUMN done INTEGER DEFAULT 0'],
    };
    migrate(db, [grown]);
    migrate(db, [grown]);
    expect(schemaVersion(db, 'notes')).toBe(2);
    expect(db.prepare('SELECT text, done FROM notes').all()).toEqual([{ text: 'kept', done: 0 }]);
  });

  it('refuses a database whose schema is newer than the code, naming the feature', () => {
    const db = openDatabase(':memory:');
    migrate(db, [{ ...notes, steps: [...notes.steps, 'SELECT 1'] }]);
    expect(() => migrate(db, [notes])).toThrow(
      /schema version 2 for "notes", newer than this code knows \(1\)/,
    );
  });

  it('rolls a failing step back whole and keeps the version before it', () => {
    const db = openDatabase(':memory:');
    const broken = {
      feature: 'notes',
      steps: [notes.steps[0] ?? '', 'CREATE TABLE x (a); SELECT nope FROM missing'],
    };
    expect(() => migrate(db, [broken])).toThrow(/no such table: missing/);
    expect(schemaVersion(db, 'notes')).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'x'").get()).toBeUndefined();
  });

  it('adopts the version a database recorded in user_version before per-feature tracking', () => {
    const db = openDatabase(':memory:');
    db.exec(notes.steps[0] ?? '');
    db.pragma('user_version = 1');
    migrate(db, [{ ...notes, adoptsUserVersion: true }]);
    expect(schemaVersion(db, 'notes')).toBe(1);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
  });
});

describe('transaction', () => {
  it('commits all writes together or none of them', () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (v INTEGER)');
    transaction(db, () => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      transaction(db, () => db.prepare('INSERT INTO t VALUES (2)').run());
    });
    expect(() =>
      transaction(db, () => {
        db.prepare('INSERT INTO t VALUES (3)').run();
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(db.prepare('SELECT v FROM t ORDER BY v').pluck().all()).toEqual([1, 2]);
  });
});
