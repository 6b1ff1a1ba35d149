/**
 * Encoded forms shorter than this are not scrubbed: they would blank ordinary text, and a form this
 * short carries too little of the secret to matter. The raw value is always scrubbed.
 */
const MIN_FORM_BYTES = 4;

/** How far a run of a short-period form is extended at once (a multiple of its period). */
const RUN_STEP_BYTES = 256;

interface Form {
  name: string;
  /** The form's UTF-8 bytes, ASCII letters lower-cased: matching is case-insensitive. */
  needle: Buffer;
  /** The needle's smallest period: two occurrences overlap by no less than this shift. */
  period: number;
}

/**
 * Removes secrets from what a request brings back: each value, and the forms an echo would turn it
 * into (base64 in either alphabet at any alignment, hex, percent-encoding, JSON escaping, UTF-16,
 * reversed), matched without regard to ASCII case, so `HEX` and `hex`, `%2F` and `%2f` are all
 * caught. Every occurrence becomes `[$CRED{NAME}]`; overlapping ones are removed together.
 */
export class SecretScrubber {
  readonly #forms: Form[];
  /**
   * Bytes of the longest form: read this many past a cap, and a form that begins before the cap is
   * seen whole, so the cut never leaves part of one behind.
   */
  readonly lookaheadBytes: number;

  /** `secrets` maps each credential's name to its value. */
  constructor(secrets: ReadonlyMap<string, string>) {
    this.#forms = [...secrets].flatMap(([name, value]) =>
      formsOf(value).map((form) => {
        const needle = foldCase(form);
        return { name, needle, period: smallestPeriod(needle) };
      }),
    );
    this.lookaheadBytes = Math.max(0, ...this.#forms.map((form) => form.needle.length));
  }

  get empty(): boolean {
    return this.#forms.length === 0;
  }

  /** `text` with every form of every secret replaced. */
  scrubText(text: string): string {
    return this.scrub(Buffer.from(text, 'utf8'));
  }

  /**
   * `body` scrubbed, then cut to its first `capBytes`: a form that begins before the cap is replaced
   * whole (its marker may run past the cap), anything that begins after it is dropped. When `body`
   * is itself a cut-off read, it must reach `capBytes + lookaheadBytes`, so no form starting before
   * the cap runs past its end.
   */
  scrub(body: Buffer, capBytes = body.length): string {
    const cap = Math.min(capBytes, body.length);
    const parts: Buffer[] = [];
    let cursor = 0;
    for (const hit of this.#hits(body, cap)) {
      parts.push(body.subarray(cursor, hit.start), Buffer.from(hit.names.map(marker).join(''), 'utf8'));
      cursor = hit.end;
    }
    if (cursor < cap) parts.push(body.subarray(cursor, cap));
    return Buffer.concat(parts).toString('utf8');
  }

  /** Every occurrence of a form starting before `cap`, overlapping ones merged, in order. */
  #hits(body: Buffer, cap: number): { start: number; end: number; names: string[] }[] {
    if (this.#forms.length === 0) return [];
    const folded = foldCase(Buffer.from(body));
    const found: { start: number; end: number; name: string }[] = [];
    for (const { name, needle, period } of this.#forms) {
      const size = needle.length;
      for (let at = folded.indexOf(needle); at !== -1 && at < cap; ) {
        // A run of occurrences one period apart is taken at once, in steps of whole periods, so a
        // repetitive secret in a repetitive body costs linear time, not size × body.
        let last = at;
        for (const step of [period * Math.max(1, Math.floor(RUN_STEP_BYTES / period)), period])
          while (
            step <= size &&
            last + step < cap &&
            last + step + size <= folded.length &&
            folded.compare(needle, size - step, size, last + size, last + size + step) === 0
          )
            last += step;
        found.push({ start: at, end: last + size, name });
        // Nothing starts closer than one period after an occurrence.
        at = folded.indexOf(needle, last + period);
      }
    }
    found.sort((a, b) => a.start - b.start);
    const merged: { start: number; end: number; names: string[] }[] = [];
    for (const hit of found) {
      const last = merged.at(-1);
      if (last && hit.start < last.end) {
        last.end = Math.max(last.end, hit.end);
        if (!last.names.includes(hit.name)) last.names.push(hit.name);
      } else merged.push({ start: hit.start, end: hit.end, names: [hit.name] });
    }
    return merged;
  }
}

const marker = (name: string) => `[$CRED{${name}}]`;

/**
 * The forms of `value` an echo could return, as bytes: raw, reversed, JSON-escaped, UTF-16 (both
 * byte orders), hex, percent-encoded (`encodeURIComponent`, form style, every byte), and base64 in
 * the standard and URL-safe alphabets, whole (with and without padding) and as the part fixed by
 * the value alone at each of the three alignments, which is what shows inside a longer base64 text.
 */
export function formsOf(value: string): Buffer[] {
  const bytes = Buffer.from(value, 'utf8');
  const base64 = [
    bytes.toString('base64'),
    bytes.toString('base64').replace(/=+$/, ''),
    ...[0, 1, 2].map((align) => base64Core(bytes, align)),
  ];
  const texts = [
    [...value].reverse().join(''),
    JSON.stringify(value).slice(1, -1),
    bytes.toString('hex'),
    encodeURIComponent(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''),
    ...base64,
    ...base64.map((text) => text.replaceAll('+', '-').replaceAll('/', '_')),
  ];
  const encoded = [
    Buffer.from(value, 'utf16le'),
    Buffer.from(value, 'utf16le').swap16(),
    ...texts.map((text) => Buffer.from(text, 'utf8')),
  ].filter((form) => form.length >= MIN_FORM_BYTES);
  const unique = new Map(
    [bytes, ...encoded].filter((form) => form.length > 0).map((form) => [form.toString('hex'), form]),
  );
  return [...unique.values()];
}

/**
 * The base64 characters fixed by `bytes` alone when `align` unknown bytes come before them: a
 * character covers 6 bits, so those whose bits all fall inside the value.
 */
function base64Core(bytes: Buffer, align: number): string {
  const text = Buffer.concat([Buffer.alloc(align), bytes, Buffer.alloc(2)]).toString('base64');
  return text.slice(Math.ceil((8 * align) / 6), Math.floor((8 * (align + bytes.length)) / 6));
}

/** The smallest p such that `bytes[i] === bytes[i + p]` for all i (KMP's failure function). */
function smallestPeriod(bytes: Buffer): number {
  const border = new Array<number>(bytes.length).fill(0);
  for (let i = 1, k = 0; i < bytes.length; i++) {
    while (k > 0 && bytes[i] !== bytes[k]) k = border[k - 1] ?? 0;
    if (bytes[i] === bytes[k]) k++;
    border[i] = k;
  }
  return bytes.length - (border[bytes.length - 1] ?? 0);
}

/** ASCII letters lower-cased in place (the length stays, so offsets match the original). */
function foldCase(bytes: Buffer): Buffer {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] ?? 0;
    if (byte >= 0x41 && byte <= 0x5a) bytes[i] = byte + 0x20;
  }
  return bytes;
}
