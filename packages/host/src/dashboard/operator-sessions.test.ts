import { FakeClock } from '@openlegion/infra/clock';
import { describe, expect, it } from 'vitest';
import { csrfMatches, OperatorSessions } from './operator-sessions.js';

describe('OperatorSessions', () => {
  it('finds a session until its time is up, and not after it is closed', async () => {
    const clock = new FakeClock(0);
    const sessions = new OperatorSessions(clock, 1_000);
    const { id, session } = sessions.open();
    expect(sessions.find(id)).toBe(session);
    expect(csrfMatches(session, session.csrf)).toBe(true);
    expect(csrfMatches(session, 'guess')).toBe(false);
    await clock.advance(999);
    expect(sessions.find(id)).toBe(session);
    await clock.advance(1);
    expect(sessions.find(id)).toBeUndefined();
    const second = sessions.open();
    sessions.close(second.id);
    expect(sessions.find(second.id)).toBeUndefined();
  });

  it('keeps at most `max` sessions, ending the oldest', () => {
    const sessions = new OperatorSessions(new FakeClock(0), 60_000, 2);
    const first = sessions.open();
    const second = sessions.open();
    const third = sessions.open();
    expect(sessions.find(first.id)).toBeUndefined();
    expect(sessions.find(second.id)).toBeDefined();
    expect(sessions.find(third.id)).toBeDefined();
  });
});
