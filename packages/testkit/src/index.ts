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
export {
  DISCORD_MESSAGE_LIMIT,
  type FakeDiscord,
  type FakeDiscordBotMessage,
  type FakeDiscordCall,
  type FakeDiscordFault,
  type FakeDiscordOptions,
  type FakeDiscordPlace,
  type FakeDiscordUser,
  FakeGateway,
  type FakeGatewayEvent,
  PRIVILEGED_INTENTS,
  startFakeDiscord,
} from './fake-discord/index.js';
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
  type FakeInboxMessage,
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
  type FakeSlack,
  type FakeSlackBotMessage,
  type FakeSlackCall,
  type FakeSlackEnvelope,
  type FakeSlackEnvelopeFilter,
  type FakeSlackFault,
  type FakeSlackOptions,
  type FakeSlackUser,
  SLACK_SECTION_TEXT_LIMIT,
  SLACK_TEXT_LIMIT,
  startFakeSlack,
} from './fake-slack/index.js';
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
