export { parseChatEvents, readChatEvents, readSseFrames } from './read-sse.js';
export { encodeSseFrame, openSseResponse, type SseFrame, type SseResponse } from './sse-response.js';
