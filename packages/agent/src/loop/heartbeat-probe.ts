import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withoutComments } from '../workspace/bootstrap-files.js';

/** What a heartbeat found without calling the LLM. */
export interface HeartbeatProbe {
  actionable: boolean;
  /** Why it is (or is not) actionable, for the host's notice. */
  reason: string;
  /** The HEARTBEAT.md checklist when it has one ('' otherwise). */
  checklist: string;
}

/**
 * The free probes of a heartbeat: work the host says is pending, and a HEARTBEAT.md with a
 * checklist. A file of only comments, headings and blank lines has none (the scaffold is such).
 */
export async function probeHeartbeat(
  workspace: string,
  pending: { messages: number; events: number },
): Promise<HeartbeatProbe> {
  const raw = await readFile(join(workspace, 'HEARTBEAT.md'), 'utf8').catch(() => '');
  const text = withoutComments(raw);
  const checklist = text
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*#/.test(line))
    .join('\n')
    .trim();
  const reasons: string[] = [];
  if (pending.messages > 0) reasons.push(`${pending.messages} pending message(s)`);
  if (pending.events > 0) reasons.push(`${pending.events} pending event(s)`);
  if (checklist !== '') reasons.push('HEARTBEAT.md has a checklist');
  return {
    actionable: reasons.length > 0,
    reason: reasons.length > 0 ? reasons.join(', ') : 'nothing actionable',
    checklist: checklist === '' ? '' : text,
  };
}
