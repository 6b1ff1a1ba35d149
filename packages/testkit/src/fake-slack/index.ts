export { SLACK_SECTION_TEXT_LIMIT, SLACK_TEXT_LIMIT } from './fake-slack-messages.js';
export { startFakeSlack } from './fake-slack-server.js';
export type {
  FakeSlack,
  FakeSlackBotMessage,
  FakeSlackCall,
  FakeSlackEnvelope,
  FakeSlackEnvelopeFilter,
  FakeSlackFault,
  FakeSlackOptions,
  FakeSlackUser,
} from './slack-types.js';
