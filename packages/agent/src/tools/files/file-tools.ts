import type { AgentTool } from '@openlegion/protocol';
import { createEditFileTool } from './edit-file-tool.js';
import { createGrepFilesTool } from './grep-files-tool.js';
import { createListFilesTool } from './list-files-tool.js';
import { createReadFileTool } from './read-file-tool.js';
import { createWriteFileTool } from './write-file-tool.js';

/** The `files` group: read, write, edit, list and search files inside the agent's workspace. */
export function createFileTools(): AgentTool[] {
  return [
    createReadFileTool(),
    createWriteFileTool(),
    createEditFileTool(),
    createListFilesTool(),
    createGrepFilesTool(),
  ] as AgentTool[];
}
