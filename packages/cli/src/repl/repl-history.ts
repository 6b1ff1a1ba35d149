import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Lines kept in the history file and offered by the arrow keys. */
export const HISTORY_LINES = 1_000;

/** The REPL history of a mesh: `<data_dir>/repl-history`, one line per entry, oldest first. */
export function historyFile(dataDir: string): string {
  return path.join(dataDir, 'repl-history');
}

/** Newest first, as readline wants it; empty when there is no history yet. */
export function loadHistory(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(-HISTORY_LINES).reverse();
  } catch {
    return [];
  }
}

export function appendHistory(file: string, line: string): void {
  try {
    appendFileSync(file, `${line.replace(/\n/g, ' ')}\n`, { mode: 0o600 });
  } catch {
    // History is a convenience: a read-only data dir must not stop the REPL.
  }
}
