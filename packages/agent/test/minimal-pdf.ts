/** What {@link minimalPdf} writes: pages of text lines, an optional title, optionally "encrypted". */
export interface MinimalPdfOptions {
  /** Each page's lines, drawn top-down in Helvetica; an empty page draws nothing (a scan has no text). */
  pages: string[][];
  /** The document information dictionary's /Title. */
  title?: string;
  /**
   * Adds a standard security handler whose user password is not empty, so a reader without the
   * password cannot open the document.
   */
  encrypted?: boolean;
}

/**
 * A small, valid PDF made by hand: a catalog, a page tree, one Helvetica font, a content stream per
 * page, and a cross-reference table with each object's true byte offset. Tests make the PDFs they
 * read with it, so the fixture and the expected text sit side by side.
 */
export function minimalPdf({ pages, title, encrypted = false }: MinimalPdfOptions): Buffer {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const catalog = add('');
  const tree = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const kids = pages.map((lines) => {
    const drawn = lines.map((line, i) => `${i === 0 ? '72 720' : '0 -16'} Td (${pdfString(line)}) Tj`);
    const stream = lines.length ? `BT /F1 12 Tf ${drawn.join(' ')} ET` : '';
    const content = add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
    return add(
      `<< /Type /Page /Parent ${tree} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
    );
  });
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${tree} 0 R >>`;
  objects[tree - 1] =
    `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const info = title === undefined ? undefined : add(`<< /Title (${pdfString(title)}) >>`);
  const encrypt = encrypted
    ? add(`<< /Filter /Standard /V 1 /R 2 /O <${'7a'.repeat(32)}> /U <${'5c'.repeat(32)}> /P -4 >>`)
    : undefined;

  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const offset = Buffer.byteLength(pdf, 'latin1');
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  const trailer = [
    `/Size ${objects.length + 1}`,
    `/Root ${catalog} 0 R`,
    ...(info ? [`/Info ${info} 0 R`] : []),
    ...(encrypt ? [`/Encrypt ${encrypt} 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`] : []),
  ];
  pdf += `trailer\n<< ${trailer.join(' ')} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

/** A PDF literal string's body: backslash and parentheses escaped. */
function pdfString(text: string): string {
  return text.replace(/[\\()]/g, (char) => `\\${char}`);
}
