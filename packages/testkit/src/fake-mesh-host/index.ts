export {
  type FakeAgentSelf,
  type FakeMeshHost,
  type FakeMeshHostCall,
  type FakeMeshHostOptions,
  startFakeMeshHost,
} from './fake-mesh-host.js';
