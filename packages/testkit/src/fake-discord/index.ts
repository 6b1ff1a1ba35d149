export type {
  FakeDiscordBotMessage,
  FakeDiscordCall,
  FakeDiscordFault,
  FakeDiscordUser,
  FakeGatewayEvent,
} from './discord-types.js';
export {
  DISCORD_MESSAGE_LIMIT,
  type FakeDiscord,
  type FakeDiscordOptions,
  type FakeDiscordPlace,
  startFakeDiscord,
} from './fake-discord-server.js';
export { FakeGateway, PRIVILEGED_INTENTS } from './fake-gateway.js';
