import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase } from '@openlegion/infra/sqlite';
import { describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../embed/local-embedder.js';
import { MemoryEngine } from '../memory-engine.js';
import { MEMORY_MIGRATIONS } from './schema.js';

const tempFile = () => join(mkdtempSync(join(tmpdir(), 'memory-store-')), 'memory.db');

describe('the memory store file', () => {
  it('opens an existing file again without re-running migrations or losing items', async () => {
    const file = tempFile();
    const first = MemoryEngine.open({ file, embedder: createLocalEmbedder() });
    await first.save([{ content: 'Kept across restarts.' }]);
    first.close();
    const second = MemoryEngine.open({ file, embedder: createLocalEmbedder() });
    expect(second.list().map((item) => item.content)).toEqual(['Kept across restarts.']);
    expect(second.categories()).toHaveLength(6 + 0);
    second.close();
  });

  it('refuses a file written by a newer schema, naming the feature', () => {
    const file = tempFile();
    const db = openDatabase(file);
    migrate(db, [{ ...MEMORY_MIGRATIONS, steps: [...MEMORY_MIGRATIONS.steps, 'SELECT 1'] }]);
    db.close();
    expect(() => MemoryEngine.open({ file })).toThrow(
      expect.objectContaining({ code: 'STORE_SCHEMA_NEWER', message: expect.stringContaining('"memory"') }),
    );
  });

  it('records the embedding dimension on first use, refuses another embedder loudly, and reembed fixes it', async () => {
    const file = tempFile();
    const small = MemoryEngine.open({ file, embedder: createLocalEmbedder({ dimensions: 64 }) });
    await small.save([{ content: 'Ferns like shade.' }, { content: 'Cacti like sun.' }]);
    expect(small.stats().embedder).toMatchObject({ dimensions: 64 });
    small.close();

    const large = MemoryEngine.open({ file, embedder: createLocalEmbedder({ dimensions: 128 }) });
    await expect(large.search({ query: 'shade' })).rejects.toMatchObject({
      code: 'MEM_EMBEDDING_MISMATCH',
      message: expect.stringContaining('64 dimensions'),
    });
    await expect(large.save([{ content: 'Moss likes damp.' }])).rejects.toMatchObject({
      code: 'MEM_EMBEDDING_MISMATCH',
    });
    const before = await large.doctor();
    expect(before.checks.find((check) => check.name === 'dimensions')).toMatchObject({ ok: false });

    expect(await large.reembed()).toMatchObject({ items: 2, dimensions: 128 });
    const found = await large.search({
      query: 'which plant likes shade',
      config: { minScore: 0, hardMinScore: 0 },
    });
    expect(found.hits[0]?.item.content).toBe('Ferns like shade.');
    expect((await large.doctor()).ok).toBe(true);
    large.close();
  });

  it('lets two connections to one file write at once without losing a write', async () => {
    const file = tempFile();
    const a = MemoryEngine.open({ file, embedder: createLocalEmbedder() });
    const b = MemoryEngine.open({ file, embedder: createLocalEmbedder() });
    const batch = (who: string) =>
      Array.from({ length: 50 }, (_, index) => ({
        content: `${who} wrote note number ${index}`,
        category: 'events',
      }));
    await Promise.all([
      ...Array.from({ length: 5 }, () => a.save(batch('alpha'), { dedup: false })),
      ...Array.from({ length: 5 }, () => b.save(batch('beta'), { dedup: false })),
    ]);
    expect(a.stats()).toMatchObject({ items: 500, withVectors: 500 });
    expect(b.categories().find((category) => category.name === 'events')?.itemCount).toBe(500);
    a.close();
    b.close();
  });

  it('reports every doctor check by name', async () => {
    const memory = MemoryEngine.open({ file: tempFile(), embedder: createLocalEmbedder() });
    await memory.save([{ content: 'Doctor checks this.' }]);
    const report = await memory.doctor();
    expect(report.ok).toBe(true);
    expect(report.checks.map((check) => check.name)).toEqual([
      'database',
      'sqlite-vec',
      'fts',
      'dimensions',
      'embedder',
      'vectors',
      'llm',
    ]);
    expect(report.checks[0]?.detail).toContain('journal wal');
    memory.close();
  });
});
