import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

const pidFileSchema = z.object({ mesh: z.string(), agent: z.string(), pid: z.number().int().positive() });
/** What the process runtime records about a running agent, so a later run can clean it up. */
export type AgentPidFile = z.infer<typeof pidFileSchema>;

/** One `<name>.pid` JSON file per running agent process in `dir`. */
export class AgentPidFiles {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  async write(name: string, record: AgentPidFile): Promise<void> {
    await mkdir(this.#dir, { recursive: true });
    await writeFile(this.#file(name), JSON.stringify(record), { mode: 0o600 });
  }

  async remove(name: string): Promise<void> {
    await rm(this.#file(name), { force: true });
  }

  /** The records of `mesh`, each with its file name (without `.pid`); unreadable files are skipped. */
  async list(mesh: string): Promise<Array<AgentPidFile & { name: string }>> {
    const entries = await readdir(this.#dir).catch((error: unknown) => {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return [];
      throw error;
    });
    const records: Array<AgentPidFile & { name: string }> = [];
    for (const entry of entries.filter((file) => file.endsWith('.pid'))) {
      const text = await readFile(path.join(this.#dir, entry), 'utf8').catch(() => '');
      const parsed = pidFileSchema.safeParse(safeJson(text));
      if (parsed.success && parsed.data.mesh === mesh) {
        records.push({ ...parsed.data, name: entry.slice(0, -'.pid'.length) });
      }
    }
    return records;
  }

  #file(name: string): string {
    return path.join(this.#dir, `${name}.pid`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // A half-written or foreign file: not one of ours.
    return null;
  }
}
