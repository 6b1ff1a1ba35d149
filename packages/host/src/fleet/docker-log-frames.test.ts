import { describe, expect, it } from 'vitest';
import { decodeDockerLogs } from './docker-log-frames.js';

function frame(stream: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('decodeDockerLogs', () => {
  it('joins stdout and stderr frames in order', () => {
    const raw = Buffer.concat([frame(1, 'listening\n'), frame(2, 'warning\n'), frame(1, 'ready\n')]);
    expect(decodeDockerLogs(raw)).toBe('listening\nwarning\nready\n');
  });

  it('returns output of a TTY container as it is', () => {
    expect(decodeDockerLogs(Buffer.from('plain output\n'))).toBe('plain output\n');
  });
});
