export {
  type FakeAgentSelf,
  type FakeInboxMessage,
  type FakeMeshHost,
  type FakeMeshHostCall,
  type FakeMeshHostOptions,
  startFakeMeshHost,
} from './fake-mesh-host.js';
