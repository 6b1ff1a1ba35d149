import { fileURLToPath } from 'node:url';

// Built siblings of this package in the workspace (dist/ sits one level below the package).
const packagesDir = new URL('../../', import.meta.url);

/** The agent runtime's entry, run by the process runtime and recognised when cleaning up after it. */
export const AGENT_ENTRY = fileURLToPath(new URL('agent/dist/main.js', packagesDir));

/** testkit's scripted LLM server, which the offline demo's `kind: scripted` providers run. */
export const FAKE_LLM_BIN = fileURLToPath(new URL('testkit/dist/fake-llm-bin.js', packagesDir));
