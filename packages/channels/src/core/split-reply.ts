const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The opening line of a fenced code block left open at the end of `text`, if one is. */
function openFence(text: string): string | undefined {
  let open: { marker: string; line: string } | undefined;
  for (const line of text.split('\n')) {
    const fence = FENCE.exec(line);
    if (!fence?.[1]) continue;
    if (!open) open = { marker: fence[1], line: line.trim() };
    else if (fence[1].startsWith(open.marker.slice(0, 3)) && fence[2]?.trim() === '') open = undefined;
  }
  return open?.line;
}

/**
 * Where to cut `text` so that the head fits in `room`: a paragraph break, else a line break, else
 * a space between words (past half the room, so a part is never mostly empty), else hard.
 */
function cutPoint(text: string, room: number): number {
  const paragraph = text.lastIndexOf('\n\n', room);
  if (paragraph > 0) return paragraph;
  const line = text.lastIndexOf('\n', room);
  if (line > 0) return line;
  const word = text.lastIndexOf(' ', room);
  if (word > room / 2) return word;
  // Never split a surrogate pair (an emoji) in two.
  const code = text.charCodeAt(room - 1);
  return code >= 0xd800 && code <= 0xdbff ? room - 1 : room;
}

/**
 * Split a reply's Markdown into parts of at most `limit` characters (a platform's message limit,
 * less a margin for what rendering adds), at paragraph boundaries, then line breaks, then words,
 * then anywhere. A code block cut in two is closed at the end of one part and opened
 * again (same language) at the start of the next, so each part renders on its own.
 */
export function splitReply(markdown: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = markdown;
  // Room for the closing fence a part may need.
  const room = limit - 5;
  while (rest.length > limit) {
    const cut = cutPoint(rest, room);
    let head = rest.slice(0, cut).trimEnd();
    rest = rest.slice(cut);
    // A cut between words drops the one space; any other drops the line breaks.
    rest = rest.startsWith(' ') ? rest.slice(1) : rest.replace(/^\n+/, '');
    const fence = openFence(head);
    if (fence) {
      head += `\n${fence.match(/^[`~]+/)?.[0] ?? '```'}`;
      rest = `${fence}\n${rest}`;
    }
    if (head.trim() !== '') parts.push(head);
  }
  if (rest.trim() !== '' || parts.length === 0) parts.push(rest);
  return parts;
}
