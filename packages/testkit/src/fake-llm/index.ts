export type { FakeLlmCliIo } from './fake-llm-cli.js';
export { main as runFakeLlmCli } from './fake-llm-cli.js';
export { FakeLlmScriptError } from './fake-llm-script-error.js';
export type { FakeLlm, FakeLlmOptions } from './fake-llm-server.js';
export { startFakeLlm } from './fake-llm-server.js';
export type { RecordedRequest } from './recorded-request.js';
export type {
  FakeLlmFail,
  FakeLlmMatch,
  FakeLlmReply,
  FakeLlmRule,
  FakeLlmScript,
  FakeLlmScriptInput,
  FakeLlmToolCall,
} from './script.js';
export { fakeLlmScriptSchema, loadFakeLlmScript, parseFakeLlmScript } from './script.js';
