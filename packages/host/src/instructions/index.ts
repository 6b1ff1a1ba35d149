export { InstructionStore } from './instruction-store.js';
export { type AgentInstructions, INSTRUCTIONS, instructionsFeature } from './instructions-feature.js';
export { instructionFileOf } from './instructions-routes.js';
