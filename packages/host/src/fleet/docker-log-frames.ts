const FRAME_HEADER_BYTES = 8;
const STREAM_STDOUT = 1;
const STREAM_STDERR = 2;

/**
 * Turns the engine's log output of a container without a TTY (frames of an 8-byte header — stream
 * type, 3 zero bytes, big-endian length — then the payload) into plain text. Output that is not
 * framed (a TTY container) is returned as it is.
 */
export function decodeDockerLogs(raw: Buffer): string {
  const chunks: Buffer[] = [];
  let offset = 0;
  while (offset + FRAME_HEADER_BYTES <= raw.length) {
    const stream = raw[offset];
    if ((stream !== STREAM_STDOUT && stream !== STREAM_STDERR) || raw.readUIntBE(offset + 1, 3) !== 0) {
      return raw.toString('utf8');
    }
    const length = raw.readUInt32BE(offset + 4);
    chunks.push(raw.subarray(offset + FRAME_HEADER_BYTES, offset + FRAME_HEADER_BYTES + length));
    offset += FRAME_HEADER_BYTES + length;
  }
  return Buffer.concat(chunks).toString('utf8');
}
