export { messagesFeature, peerMessage } from './messages-feature.js';
