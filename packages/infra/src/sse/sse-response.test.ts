import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../clock/index.js';
import { openSseResponse, SSE_DROP_GRACE_MS } from './index.js';

/**
 * A response whose client takes only what `take()` lets through: what is written stays queued
 * (`writableLength`), as on a socket whose reader stopped reading.
 */
class SlowResponse extends EventEmitter {
  writableLength = 0;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  readonly written: string[] = [];

  writeHead() {
    return this;
  }
  flushHeaders() {}
  write(chunk: string): boolean {
    this.written.push(chunk);
    this.writableLength += Buffer.byteLength(chunk);
    return this.writableLength < 16 * 1024;
  }
  end(chunk?: string) {
    if (chunk !== undefined) this.write(chunk);
    this.writableEnded = true;
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
  /** The client reads everything queued. */
  take() {
    this.writableLength = 0;
    this.emit('drain');
  }
}

const frameOf = (bytes: number) => ({ event: 'put', data: 'x'.repeat(bytes) });

describe('openSseResponse', () => {
  it('drops a reader that leaves more than the bound unsent, telling it why in a last error frame', async () => {
    const raw = new SlowResponse();
    const clock = new FakeClock(0);
    const stream = openSseResponse(raw as unknown as ServerResponse, {
      maxBacklogBytes: 100_000,
      backlogField: 'limits.stream_backlog_bytes',
      clock,
    });
    for (let i = 0; i < 9; i++) stream.send(frameOf(10_000));
    expect(stream.signal.aborted).toBe(false);
    stream.send(frameOf(10_000));

    expect(stream.signal.aborted).toBe(true);
    expect(raw.writableEnded).toBe(true);
    const last = raw.written.at(-1) ?? '';
    expect(last.startsWith('event: error\ndata: ')).toBe(true);
    const body = JSON.parse(last.slice('event: error\ndata: '.length));
    expect(body.error.code).toBe('MESH_STREAM_TOO_SLOW');
    expect(body.error.message).toBe(
      "the stream's reader left 100190 bytes unsent, more than limits.stream_backlog_bytes (100000) allows; " +
        'read the stream as it comes and reconnect',
    );
    expect((stream.signal.reason as { code: string }).code).toBe('MESH_STREAM_TOO_SLOW');

    // Nothing more is queued for it; after the grace its socket goes, and its buffers with it.
    const frames = raw.written.length;
    stream.send(frameOf(10_000));
    expect(raw.written.length).toBe(frames);
    await clock.advance(SSE_DROP_GRACE_MS - 1);
    expect(raw.destroyed).toBe(false);
    await clock.advance(1);
    expect(raw.destroyed).toBe(true);
  });

  it('keeps a reader that keeps up, however much passes through', () => {
    const raw = new SlowResponse();
    const stream = openSseResponse(raw as unknown as ServerResponse, {
      maxBacklogBytes: 100_000,
      clock: new FakeClock(0),
    });
    for (let i = 0; i < 1_000; i++) {
      stream.send(frameOf(50_000));
      raw.take();
    }
    expect(stream.signal.aborted).toBe(false);
    expect(raw.written.length).toBe(1_000);
  });

  it('tells a paced producer when the reader has taken what was queued', async () => {
    const raw = new SlowResponse();
    const stream = openSseResponse(raw as unknown as ServerResponse, { clock: new FakeClock(0) });
    stream.send(frameOf(50_000));
    expect(stream.backlog).toBeGreaterThan(50_000);
    let drained = false;
    const waiting = stream.drained().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    raw.take();
    await waiting;
    expect(stream.backlog).toBe(0);
  });

  it('does not destroy a dropped reader that took its last frame in time', async () => {
    const raw = new SlowResponse();
    const clock = new FakeClock(0);
    const stream = openSseResponse(raw as unknown as ServerResponse, { maxBacklogBytes: 10_000, clock });
    stream.send(frameOf(20_000));
    expect(stream.signal.aborted).toBe(true);
    raw.writableFinished = true;
    raw.emit('close');
    await clock.advance(SSE_DROP_GRACE_MS);
    expect(raw.destroyed).toBe(false);
  });
});
