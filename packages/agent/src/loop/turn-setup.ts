import type { AgentSelf, AgentTool, ChatEvent } from '@openlegion/protocol';
import type { StoredMessage } from '../conversation-store.js';
import type { Directives } from '../prompt/directives.js';
import { buildSystemPrompt, type TurnKind } from '../prompt/system-prompt.js';
import { type SkillSnapshot, skillsPrompt } from '../skills/index.js';
import { filterByProfile } from '../tool-registry/tool-profiles.js';
import type { ToolLoader, TurnToolset } from '../tool-registry/turn-toolset.js';
import { type BootstrapFile, loadBootstrapFiles } from '../workspace/bootstrap-files.js';
import type { InstructionSource } from '../workspace/operator-instructions.js';

/** The prompt and tools of one turn. */
export interface TurnSetup {
  systemPrompt: string;
  tools: TurnToolset;
}

export interface TurnSetupInput {
  self: AgentSelf;
  workspace: string;
  instructions: InstructionSource;
  /** The agent's tools (mesh.yaml `tools` applied); a profile directive narrows them. */
  tools: readonly AgentTool[];
  kind: TurnKind;
  directives: Directives;
  conversationId: string;
  /** The stored conversation: the tools it called are offered again (on demand). */
  history: readonly StoredMessage[];
  loader: ToolLoader;
  /** The skills this agent sees; none when absent. */
  skills?: (() => Promise<SkillSnapshot>) | undefined;
  nowMs: number;
  emit: (event: ChatEvent) => void;
}

/**
 * Tells the user when a workspace file was cut to fit the prompt: once per conversation, file
 * and size, so a long chat is not told again every turn, and a file that changes is told anew.
 */
export class TruncationNotices {
  readonly #told = new Set<string>();

  announce(conversationId: string, files: readonly BootstrapFile[], emit: (event: ChatEvent) => void): void {
    for (const file of files.filter((f) => f.truncated)) {
      const key = `${conversationId}\u0000${file.name}\u0000${file.chars}`;
      if (this.#told.has(key)) continue;
      this.#told.add(key);
      emit({
        type: 'notice',
        message:
          `${file.name} is ${file.chars} characters; the prompt carries ${file.text.length} (its start and ` +
          `end). ${file.source === 'operator' ? `Shorten it to fit.` : 'The agent reads the rest with read_file.'}`,
      });
    }
  }
}

/**
 * Read the operator's instructions (from the host) and the workspace files (capped), pick the
 * turn's tools and build its system prompt.
 */
export async function setUpTurn(input: TurnSetupInput, notices: TruncationNotices): Promise<TurnSetup> {
  const { directives } = input;
  const files = await loadBootstrapFiles(input.workspace, await input.instructions.current(), {
    reserved: input.self.soul.length,
  });
  notices.announce(input.conversationId, files, input.emit);
  const permitted = directives.profile ? filterByProfile(input.tools, directives.profile) : [...input.tools];
  const tools = input.loader.toolset({
    conversationId: input.conversationId,
    permitted,
    pinned: Array.isArray(input.self.tools) ? input.self.tools : [],
    mode: input.self.tool_loading,
    history: input.history,
  });
  const skills =
    input.skills && permitted.some((tool) => tool.name === 'skill_view') ? await input.skills() : undefined;
  const systemPrompt = buildSystemPrompt({
    self: input.self,
    mode: directives.mode,
    files,
    // Not the loaded ones: the prompt stays the same as tools are loaded (a cacheable prefix).
    toolNames: tools.always,
    skills: skills ? skillsPrompt(skills.skills, input.self.skills.prompt_chars) : '',
    kind: input.kind,
    think: directives.think,
    verbose: directives.verbose,
    reasoning: directives.reasoning,
    date: new Date(input.nowMs).toISOString().slice(0, 10),
  });
  return { systemPrompt, tools };
}
