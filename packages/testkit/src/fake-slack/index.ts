export { SLACK_SECTION_TEXT_LIMIT, SLACK_TEXT_LIMIT } from './fake-slack-messages.js';
export {
  type FakeSlack,
  type FakeSlackEnvelopeFilter,
  type FakeSlackOptions,
  startFakeSlack,
} from './fake-slack-server.js';
export type {
  FakeSlackBotMessage,
  FakeSlackCall,
  FakeSlackEnvelope,
  FakeSlackFault,
  FakeSlackUser,
} from './slack-types.js';
