import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretScrubber } from './secret-scrubber.js';

const SECRET = 'ghp_Sec+ret/Value~42';
const scrubber = new SecretScrubber(new Map([['GITHUB_TOKEN', SECRET]]));
const MARK = '[$CRED{GITHUB_TOKEN}]';
const bytes = Buffer.from(SECRET);

/** An echo's ways of hiding a value: each returns text holding `value` encoded. */
const ENCODINGS = {
  raw: (value: string) => value,
  reversed: (value: string) => [...value].reverse().join(''),
  hex: (value: string) => Buffer.from(value).toString('hex'),
  HEX: (value: string) => Buffer.from(value).toString('hex').toUpperCase(),
  uri: (value: string) => encodeURIComponent(value),
  form: (value: string) => new URLSearchParams({ v: value }).toString().slice(2),
  base64: (value: string) => Buffer.from(value).toString('base64'),
  base64url: (value: string) => Buffer.from(value).toString('base64url'),
} as const;
type Encoding = keyof typeof ENCODINGS;
interface Piece {
  before: string;
  encoding: Encoding | 'embedded';
  prefix: Uint8Array;
  suffix: Uint8Array;
  urlSafe: boolean;
}

/** base64 of the value with `before` and `after` bytes around it, in either alphabet. */
const embeddedBase64 = (value: Buffer, before: Uint8Array, after: Uint8Array, urlSafe: boolean) =>
  Buffer.concat([before, value, after]).toString(urlSafe ? 'base64url' : 'base64');

/** Whether some decoding of some run of `text` (base64 at each offset, hex, percent, reversed) gives `secret`. */
function revealsSecret(text: string, secret: string): boolean {
  const wanted = Buffer.from(secret);
  const lower = text.toLowerCase();
  if (lower.includes(secret.toLowerCase()) || [...lower].reverse().join('').includes(secret.toLowerCase()))
    return true;
  for (const run of text.match(/[A-Za-z0-9+/_-]+/g) ?? [])
    for (let offset = 0; offset < 4; offset++)
      if (Buffer.from(run.slice(offset).replaceAll('-', '+').replaceAll('_', '/'), 'base64').includes(wanted))
        return true;
  for (const run of text.match(/[0-9a-fA-F]+/g) ?? [])
    for (let offset = 0; offset < 2; offset++)
      if (Buffer.from(run.slice(offset), 'hex').includes(wanted)) return true;
  const percentDecoded = Buffer.from(
    text
      .replaceAll('+', ' ')
      .replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  );
  return percentDecoded.includes(wanted);
}

describe('SecretScrubber', () => {
  it.each(Object.keys(ENCODINGS) as Encoding[])('replaces the value written %s', (encoding) => {
    const text = `before ${ENCODINGS[encoding](SECRET)} after`;
    expect(scrubber.scrubText(text)).toBe(`before ${MARK} after`);
  });

  it('finds the value inside a longer base64 text at each of the three alignments, in both alphabets', () => {
    for (const before of [0, 1, 2])
      for (const urlSafe of [false, true]) {
        const text = embeddedBase64(bytes, Buffer.alloc(before, 7), Buffer.from('tail bytes'), urlSafe);
        const clean = scrubber.scrubText(text);
        expect(clean).toContain(MARK);
        expect(revealsSecret(clean, SECRET)).toBe(false);
      }
  });

  it('replaces JSON-escaped and UTF-16 forms, and mixed-case hex and percent escapes', () => {
    const quoted = new SecretScrubber(new Map([['Q', 'say "hi"\\ to me']]));
    expect(quoted.scrubText(JSON.stringify({ echo: 'say "hi"\\ to me' }))).toBe('{"echo":"[$CRED{Q}]"}');
    expect(scrubber.scrubText(`x${Buffer.from(SECRET, 'utf16le').toString('latin1')}x`)).toBe(`x${MARK}x`);
    const mixed = encodeURIComponent(SECRET).replace('%2B', '%2b');
    expect(scrubber.scrubText(mixed)).toBe(MARK);
  });

  it('removes overlapping forms of several secrets together', () => {
    const two = new SecretScrubber(
      new Map([
        ['A', 'abcdefgh'],
        ['B', 'efghijkl'],
      ]),
    );
    expect(two.scrubText('xxabcdefghijklxx')).toBe('xx[$CRED{A}][$CRED{B}]xx');
  });

  it('removes a whole run of a repetitive secret, in linear time', () => {
    const periodic = new SecretScrubber(new Map([['P', 'abababab']]));
    expect(periodic.scrubText(`x${'ab'.repeat(9)}x`)).toBe('x[$CRED{P}]x');
    // Occurrences 4 apart, though the smallest period is 3.
    expect(new SecretScrubber(new Map([['S', 'aabaa']])).scrubText('xaabaaabaax')).toBe('x[$CRED{S}]x');
    const long = new SecretScrubber(new Map([['L', 'x'.repeat(3000)]]));
    const started = performance.now();
    expect(long.scrub(Buffer.from('x'.repeat(2 * 1024 * 1024)), 1024 * 1024)).toBe('[$CRED{L}]');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('leaves no occurrence of a repetitive secret in runs of its unit (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 3 }),
        fc.integer({ min: 3, max: 12 }),
        fc.array(fc.tuple(textArb, fc.integer({ min: 0, max: 40 })), { maxLength: 6 }),
        (unit, times, pieces) => {
          const secret = unit.repeat(times);
          fc.pre(secret.length >= 8 && markerFree(secret));
          const text = pieces.map(([before, count]) => before + unit.repeat(count)).join('');
          const clean = new SecretScrubber(new Map([['TOKEN', secret]])).scrubText(text);
          expect(clean.toLowerCase()).not.toContain(secret.toLowerCase());
        },
      ),
    );
  });

  it('scrubs before it cuts: a value straddling the cap is replaced whole', () => {
    const body = Buffer.from(`${'.'.repeat(95)}${SECRET}${'.'.repeat(100)}`);
    expect(scrubber.scrub(body, 100)).toBe(`${'.'.repeat(95)}${MARK}`);
    expect(scrubber.scrub(Buffer.from('x'.repeat(300)), 100)).toBe('x'.repeat(100));
    expect(scrubber.lookaheadBytes).toBeGreaterThanOrEqual(Buffer.from(SECRET).toString('hex').length);
  });

  it('leaves text alone when it has no secrets', () => {
    const none = new SecretScrubber(new Map());
    expect(none.empty).toBe(true);
    expect(none.lookaheadBytes).toBe(0);
    expect(none.scrub(Buffer.from('héllo wörld'), 5)).toBe('héll');
  });

  const secretArb = fc.oneof(
    fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 40 }),
    fc.string({ unit: 'grapheme', minLength: 8, maxLength: 20 }),
  );
  const textArb = fc.string({ unit: 'grapheme-ascii', maxLength: 30 });
  const pieceArb: fc.Arbitrary<Piece> = fc.record({
    before: textArb,
    encoding: fc.constantFrom(...(Object.keys(ENCODINGS) as Encoding[]), 'embedded'),
    prefix: fc.uint8Array({ maxLength: 5 }),
    suffix: fc.uint8Array({ maxLength: 5 }),
    urlSafe: fc.boolean(),
  });
  const encode = (secret: string, piece: Piece) =>
    piece.encoding === 'embedded'
      ? embeddedBase64(Buffer.from(secret), piece.prefix, piece.suffix, piece.urlSafe)
      : ENCODINGS[piece.encoding](secret);
  const markerFree = (secret: string) => !'[$CRED{TOKEN}]'.toLowerCase().includes(secret.toLowerCase());

  it('leaves no encoding of a random secret in random text (property)', () => {
    fc.assert(
      fc.property(
        secretArb,
        fc.array(pieceArb, { minLength: 1, maxLength: 6 }),
        textArb,
        (secret, pieces, tail) => {
          fc.pre(markerFree(secret));
          const text = pieces.map((piece) => piece.before + encode(secret, piece)).join('') + tail;
          const clean = new SecretScrubber(new Map([['TOKEN', secret]])).scrubText(text);
          expect(revealsSecret(clean, secret)).toBe(false);
        },
      ),
    );
  });

  it('never leaves 8 or more leading characters of a form that straddles the cap (property)', () => {
    const CAP = 200;
    fc.assert(
      fc.property(
        secretArb,
        pieceArb,
        fc.nat(),
        fc.string({ unit: fc.constantFrom('.', ' ', ','), minLength: 300, maxLength: 300 }),
        fc.boolean(),
        (secret, piece, shift, padding, cutRead) => {
          fc.pre(markerFree(secret));
          const form = encode(secret, piece);
          // Of base64 around other bytes, the characters whose 6 bits all come from the secret.
          const size = Buffer.byteLength(secret);
          const at = piece.prefix.length;
          const secretPart =
            piece.encoding === 'embedded'
              ? form.slice(Math.ceil((8 * at) / 6), Math.floor((8 * (at + size)) / 6))
              : form;
          fc.pre(secretPart.length >= 8);
          const start = CAP - 1 - (shift % (secretPart.length - 1));
          const body = Buffer.from(padding.slice(0, start) + secretPart + padding);
          const scrubber = new SecretScrubber(new Map([['TOKEN', secret]]));
          const read = cutRead ? body.subarray(0, CAP + scrubber.lookaheadBytes) : body;
          const clean = scrubber.scrub(read, CAP).toLowerCase();
          expect(clean).not.toContain(secretPart.slice(0, 8).toLowerCase());
          expect(revealsSecret(clean, secret)).toBe(false);
        },
      ),
    );
  });
});
