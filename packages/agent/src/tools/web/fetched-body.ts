/** What a fetched body is, from its declared media type and, when that says little, its first bytes. */
export type BodyKind = 'html' | 'text' | 'pdf' | 'image' | 'binary';

/** Media types returned as they are: no article to find in them. */
const PLAIN_TYPES = /^(text\/[\w.+-]+|application\/(json|xml|javascript|ecmascript|[\w.+-]+\+(json|xml)))$/i;
/** Types that say nothing about the content: the bytes decide. */
const UNDECLARED_TYPES = /^(|application\/octet-stream|binary\/octet-stream|application\/unknown)$/i;
/** File signatures, as the first bytes read as latin1 (`?` stands for any byte). */
const MAGIC: [string, string][] = [
  ['%PDF-', 'application/pdf'],
  ['\x89PNG\r\n\x1a\n', 'image/png'],
  ['\xff\xd8\xff', 'image/jpeg'],
  ['GIF87a', 'image/gif'],
  ['GIF89a', 'image/gif'],
  ['RIFF????WEBP', 'image/webp'],
];

/** The media type of a Content-Type value, lower-cased, without its parameters. */
export function mediaTypeOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * The kind of a body and the media type it is taken for: the declared type, unless the server
 * declared none or a generic one, then what the first bytes show (a PDF or image signature, markup,
 * or text without control characters).
 */
export function classifyBody(contentType: string, bytes: Uint8Array): { kind: BodyKind; type: string } {
  let type = mediaTypeOf(contentType);
  // A PDF is a PDF whatever the server calls it: read as HTML it has no document to extract.
  if (UNDECLARED_TYPES.test(type) || startsWithPdfSignature(bytes)) type = sniffType(bytes);
  if (type === 'text/html' || type === 'application/xhtml+xml') return { kind: 'html', type };
  if (type === 'application/pdf') return { kind: 'pdf', type };
  if (type.startsWith('image/')) return { kind: 'image', type };
  if (PLAIN_TYPES.test(type)) return { kind: 'text', type };
  return { kind: 'binary', type };
}

function startsWithPdfSignature(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
}

function sniffType(bytes: Uint8Array): string {
  const head = Buffer.from(bytes.subarray(0, 512)).toString('latin1');
  for (const [signature, type] of MAGIC)
    if ([...signature].every((char, i) => char === '?' || head[i] === char)) return type;
  // Control characters other than tab, line breaks and form feed do not occur in text.
  if (
    [...head].some((char) => char.charCodeAt(0) < 9 || (char.charCodeAt(0) > 13 && char.charCodeAt(0) < 27))
  )
    return 'application/octet-stream';
  return /^\s*</.test(head) ? 'text/html' : 'text/plain';
}

/** A decoded body and the charset it was read in. */
export interface DecodedBody {
  text: string;
  charset: string;
  /** Set when the declared charset is unknown here and UTF-8 was used instead. */
  unknownCharset?: string;
}

/**
 * Text in the charset the Content-Type header names, else a byte-order mark, else the page's own
 * `<meta charset>` (or `<meta http-equiv>`) or XML declaration; UTF-8 when none does.
 */
export function decodeBody(bytes: Uint8Array, contentType: string): DecodedBody {
  const declared = charsetOf(bytes, contentType);
  try {
    const decoder = new TextDecoder(declared);
    if (decoder.encoding === 'windows-1252')
      return { text: decodeWindows1252(bytes), charset: decoder.encoding };
    return { text: decoder.decode(bytes), charset: decoder.encoding };
  } catch {
    return { text: new TextDecoder('utf-8').decode(bytes), charset: 'utf-8', unknownCharset: declared };
  }
}

function charsetOf(bytes: Uint8Array, contentType: string): string {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
  if (fromHeader) return fromHeader;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  // Declarations are ASCII in every charset a page may use, so the first bytes read as latin1 show them.
  const head = Buffer.from(bytes.subarray(0, 4_096)).toString('latin1');
  return (
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ??
    /^<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)/i.exec(head)?.[1] ??
    'utf-8'
  );
}

/** What windows-1252 puts at 0x80-0x9f (latin1 has control characters there); 0 where it has none. */
const WINDOWS_1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0,
  0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a,
  0x0153, 0, 0x017e, 0x0178,
];

/**
 * windows-1252 by hand: Node's TextDecoder (before 22) decodes it as latin1, so curly quotes, dashes
 * and the euro sign of pages labelled windows-1252 or iso-8859-1 (which browsers read as windows-1252)
 * would come out as control characters.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const chars: string[] = [];
  const CHUNK = 8_192;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const codes = Array.from(bytes.subarray(start, start + CHUNK), (byte) =>
      byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_HIGH[byte - 0x80] || byte : byte,
    );
    chars.push(String.fromCharCode(...codes));
  }
  return chars.join('');
}
