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
  type FakeAgentSelf,
  type FakeMeshHost,
  type FakeMeshHostCall,
  type FakeMeshHostOptions,
  startFakeMeshHost,
} from './fake-mesh-host/index.js';
