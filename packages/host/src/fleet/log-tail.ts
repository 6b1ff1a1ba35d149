/** Keeps the last `capacity` lines of a stream of output chunks. */
export class LogTail {
  readonly #capacity: number;
  readonly #lines: string[] = [];
  #partial = '';

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Adds a chunk of output; a line split across chunks is joined. */
  push(chunk: string): void {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    for (const line of parts) this.#add(line);
  }

  /** The last `count` lines, oldest first, including an unfinished last line. */
  last(count: number): string[] {
    const lines = this.#partial === '' ? this.#lines : [...this.#lines, this.#partial];
    return count <= 0 ? [] : lines.slice(-count);
  }

  #add(line: string): void {
    this.#lines.push(line);
    if (this.#lines.length > this.#capacity) this.#lines.shift();
  }
}
