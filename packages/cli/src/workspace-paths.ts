import { createRequire } from 'node:module';

// Resolved through the packages' exports, as declared dependencies of the CLI.
const require = createRequire(import.meta.url);

/** The agent runtime's entry, run by the process runtime and recognised when cleaning up after it. */
export const AGENT_ENTRY = require.resolve('@openlegion/agent/main');

/** testkit's scripted LLM server, which the offline demo's `kind: scripted` providers run. */
export const FAKE_LLM_BIN = require.resolve('@openlegion/testkit/fake-llm-bin');
