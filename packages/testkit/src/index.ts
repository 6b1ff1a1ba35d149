export { readyAgentInfo } from './agent-info.js';
export {
  Chaos,
  type ChaosRates,
  type ChaosTally,
  DEFAULT_CHAOS_RATES,
  exactlyOnce,
  seededRandom,
} from './chaos/index.js';
export { type FakeAnthropic, type FakeAnthropicOptions, startFakeAnthropic } from './fake-anthropic/index.js';
export type {
  FakeLlm,
  FakeLlmCliIo,
  FakeLlmFail,
  FakeLlmMatch,
  FakeLlmOptions,
  FakeLlmReply,
  FakeLlmRule,
  FakeLlmScript,
  FakeLlmScriptInput,
  FakeLlmToolCall,
  RecordedRequest,
} from './fake-llm/index.js';
export {
  FakeLlmScriptError,
  fakeLlmScriptSchema,
  loadFakeLlmScript,
  parseFakeLlmScript,
  runFakeLlmCli,
  startFakeLlm,
} from './fake-llm/index.js';
export {
  type BearerFront,
  type BearerFrontRequest,
  type FakeOAuth,
  type FakeOAuthOptions,
  type FakeOAuthRequest,
  startBearerFront,
  startFakeOAuth,
} from './fake-mcp/index.js';
export {
  type FakeAgentSelf,
  type FakeMeshHost,
  type FakeMeshHostCall,
  type FakeMeshHostOptions,
  startFakeMeshHost,
} from './fake-mesh-host/index.js';
export {
  type FakeOtlpCollector,
  type FakeOtlpFault,
  type FakeOtlpRequest,
  type ReceivedSpan,
  spansOfExport,
  startFakeOtlpCollector,
} from './fake-otlp/index.js';
export {
  defaultPages,
  type FakeSearchFault,
  type FakeSearchKind,
  type FakeSearchOptions,
  type FakeSearchPage,
  type FakeSearchProvider,
  type FakeSearchRequest,
  startFakeSearchProvider,
} from './fake-search/index.js';
export {
  type FakeTelegram,
  type FakeTelegramBotMessage,
  type FakeTelegramCall,
  type FakeTelegramChat,
  type FakeTelegramFault,
  type FakeTelegramOptions,
  type FakeTelegramSender,
  type FakeTelegramUpdate,
  type FakeTelegramUser,
  type FakeWebhook,
  type FakeWebhookDelivery,
  type ParsedTelegramHtml,
  parseTelegramHtml,
  startFakeTelegram,
  TELEGRAM_MESSAGE_LIMIT,
  type UpdateFilter,
} from './fake-telegram/index.js';
