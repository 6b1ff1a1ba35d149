export { ANTHROPIC_VERSION, toAnthropicRequest } from './anthropic-request.js';
export { toChatCompletion, toFinishReason, toOpenAiUsage } from './anthropic-response.js';
export { AnthropicStreamTranslator } from './anthropic-stream.js';
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  type AnthropicCall,
  anthropicCall,
  fromAnthropicResponse,
} from './anthropic-wire.js';
