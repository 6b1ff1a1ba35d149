export { DISCORD_MESSAGE_LIMIT } from './discord-payloads.js';
export type {
  FakeDiscordBotMessage,
  FakeDiscordCall,
  FakeDiscordFault,
  FakeDiscordUser,
  FakeGatewayEvent,
} from './discord-types.js';
export {
  type FakeDiscord,
  type FakeDiscordOptions,
  type FakeDiscordPlace,
  startFakeDiscord,
} from './fake-discord-server.js';
export { FakeGateway, PRIVILEGED_INTENTS } from './fake-gateway.js';
