export {
  type FakeAnthropic,
  type FakeAnthropicOptions,
  startFakeAnthropic,
} from './fake-anthropic-server.js';
