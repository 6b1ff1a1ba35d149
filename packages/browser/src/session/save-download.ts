import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Download } from 'playwright-core';
import type { SessionEvent } from './session-events.js';

/** Save a download as `<workspace>/downloads/<name>` (never overwriting) and say what happened. */
export async function saveDownload(
  download: Download,
  workspace: string,
  tabId: number,
): Promise<SessionEvent> {
  const name = path.basename(download.suggestedFilename()) || 'download';
  try {
    const dir = path.join(workspace, 'downloads');
    await mkdir(dir, { recursive: true });
    const target = await freePath(dir, name);
    await download.saveAs(target);
    const { size } = await stat(target);
    return { kind: 'download', tabId, path: path.relative(workspace, target), bytes: size };
  } catch (cause) {
    const reason = cause instanceof Error ? (cause.message.split('\n')[0] ?? '') : String(cause);
    return { kind: 'download-failed', tabId, name, reason };
  }
}

/** `name`, or `name (2)`, … — the first that does not exist yet. */
async function freePath(dir: string, name: string): Promise<string> {
  const { name: stem, ext } = path.parse(name);
  for (let n = 1; ; n++) {
    const candidate = path.join(dir, n === 1 ? name : `${stem} (${n})${ext}`);
    const exists = await stat(candidate).then(
      () => true,
      () => false,
    );
    if (!exists) return candidate;
  }
}
