/**
 * The last `capacity` bytes written to it, plus a running count of every byte ever written, so a
 * reader can ask for "what came after byte N" and be told honestly how much of that was dropped.
 */
export class OutputRingBuffer {
  readonly #buffer: Buffer;
  #start = 0;
  #length = 0;
  #written = 0;

  constructor(readonly capacity: number) {
    this.#buffer = Buffer.alloc(capacity);
  }

  /** Bytes written since the start, kept or not. */
  get totalBytes(): number {
    return this.#written;
  }

  write(chunk: Buffer): void {
    this.#written += chunk.length;
    const data = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
    for (const byte of data) {
      const end = (this.#start + this.#length) % this.capacity;
      this.#buffer[end] = byte;
      if (this.#length < this.capacity) this.#length++;
      else this.#start = (this.#start + 1) % this.capacity;
    }
  }

  /**
   * What was written from byte `since` on (default: everything kept). `dropped` counts the bytes
   * from `since` that were overwritten before they were read; `next` is the cursor to pass next time.
   */
  read(since = 0): { text: string; dropped: number; next: number } {
    const firstKept = this.#written - this.#length;
    const from = Math.max(since, firstKept);
    const skip = Math.min(from - firstKept, this.#length);
    const bytes = Buffer.alloc(this.#length - skip);
    for (let index = 0; index < bytes.length; index++)
      bytes[index] = this.#buffer[(this.#start + skip + index) % this.capacity] ?? 0;
    return { text: bytes.toString('utf8'), dropped: Math.max(0, firstKept - since), next: this.#written };
  }
}
