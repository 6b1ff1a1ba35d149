import { createHash } from 'node:crypto';
import { Cron } from 'croner';

/** When a job runs: a 5-field cron expression in a timezone, a fixed interval, or once. */
export type Schedule =
  | { kind: 'cron'; expression: string; timezone: string | undefined }
  | { kind: 'every'; intervalMs: number }
  | { kind: 'at'; atMs: number };

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const EVERY = /^every\s+(\d+)\s*(s|m|h|d)$/i;
const AT = /^at\s+(.+)$/i;
/** Top-of-hour jobs of a fleet would all call their LLMs in the same second; spread them over this. */
export const TOP_OF_HOUR_JITTER_MS = 120_000;

/**
 * Parse `every 15m`, `at 2026-12-01T09:00:00Z`, or a 5-field cron expression (`@hourly` and
 * friends too). Throws an Error whose message says what is wrong, for the caller to prefix with
 * the field (`agents.a.cron[0].schedule: ...`).
 */
export function parseSchedule(text: string, timezone?: string): Schedule {
  const trimmed = text.trim();
  const every = EVERY.exec(trimmed);
  if (every) {
    const amount = Number(every[1]);
    if (amount <= 0) throw new Error(`"${text}": the interval must be at least 1`);
    return {
      kind: 'every',
      intervalMs: amount * UNIT_MS[(every[2] ?? 's').toLowerCase() as keyof typeof UNIT_MS],
    };
  }
  const at = AT.exec(trimmed);
  if (at) {
    const atMs = Date.parse(at[1] ?? '');
    if (Number.isNaN(atMs))
      throw new Error(
        `"${text}": "${at[1]}" is not a date and time (use ISO 8601, e.g. at 2026-12-01T09:00:00Z)`,
      );
    return { kind: 'at', atMs };
  }
  if (!trimmed.startsWith('@') && trimmed.split(/\s+/).length !== 5) {
    throw new Error(
      `"${text}": use 5 cron fields (minute hour day month weekday), every <n>s|m|h|d, or at <ISO time>`,
    );
  }
  if (timezone !== undefined) checkTimezone(timezone);
  try {
    new Cron(trimmed, { paused: true, ...(timezone ? { timezone } : {}) });
  } catch (error) {
    throw new Error(`"${text}": ${(error as Error).message.replace(/^CronPattern: /, '')}`);
  }
  return { kind: 'cron', expression: trimmed, timezone };
}

/** When a new job first runs: `every` at once (its first tick), the others at their next time. */
export function firstRun(schedule: Schedule, nowMs: number, jobId: string): number | undefined {
  return schedule.kind === 'every' ? nowMs : nextRunAfter(schedule, nowMs, jobId);
}

/**
 * The first run strictly after `afterMs`, or undefined when there is none (a one-shot in the
 * past). Cron jobs at minute 0 get a stable per-job jitter.
 */
export function nextRunAfter(schedule: Schedule, afterMs: number, jobId: string): number | undefined {
  switch (schedule.kind) {
    case 'at':
      return schedule.atMs > afterMs ? schedule.atMs : undefined;
    case 'every':
      return afterMs + schedule.intervalMs;
    case 'cron': {
      const cron = new Cron(schedule.expression, {
        paused: true,
        ...(schedule.timezone ? { timezone: schedule.timezone } : {}),
      });
      const jitter = cron.getPattern()?.split(/\s+/)[0] === '0' ? jitterFor(jobId) : 0;
      const next = cron.nextRun(new Date(afterMs - jitter));
      return next ? next.getTime() + jitter : undefined;
    }
  }
}

function jitterFor(jobId: string): number {
  return createHash('sha256').update(jobId).digest().readUInt32BE(0) % TOP_OF_HOUR_JITTER_MS;
}

function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new Error(`"${timezone}" is not a timezone (use an IANA name, e.g. Europe/Berlin)`);
  }
}
