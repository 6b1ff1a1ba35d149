export { InstructionStore } from './instruction-store.js';
export { type InstructionsFeature, instructionsFeature } from './instructions-feature.js';
export { instructionFileOf } from './instructions-routes.js';
