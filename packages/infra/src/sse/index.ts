export { MAX_SSE_FRAME_CHARS, parseChatEvents, readChatEvents, readSseFrames } from './read-sse.js';
export {
  DEFAULT_SSE_BACKLOG_BYTES,
  encodeSseFrame,
  openSseResponse,
  SSE_DROP_GRACE_MS,
  type SseFrame,
  type SseOptions,
  type SseResponse,
} from './sse-response.js';
