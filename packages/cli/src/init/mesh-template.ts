/** One agent as `openlegion init` writes it. */
export interface InitAgent {
  name: string;
  role: string;
  /** May use the web: `permissions.egress: ['@web']` (any public host). */
  web?: boolean;
}

/** What `openlegion init` asks for. */
export interface InitAnswers {
  mesh: string;
  agents: InitAgent[];
  /** `demo` runs offline on a scripted LLM; the others need a key (kept in the vault). */
  provider: 'demo' | 'openai' | 'anthropic' | 'ollama';
  model: string;
}

export const DEFAULT_MODELS: Record<InitAnswers['provider'], string> = {
  demo: 'scripted',
  openai: 'gpt-4.1-mini',
  anthropic: 'claude-sonnet-4-5',
  ollama: 'llama3.1',
};

/** The environment variable / vault entry a provider's key is kept under. */
export const KEY_NAMES: Partial<Record<InitAnswers['provider'], string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

const DEMO_SCRIPT_FILE = 'demo-llm.yaml';

/** An agent that may use the web: any public host; the egress proxy still refuses private addresses. */
const WEB_LINES = `    # The web: any public host. Loopback, private and metadata addresses stay refused.
    permissions: { egress: ["@web"] }`;
/** An agent without the web, and the line that would give it. */
const NO_WEB_LINES = `    # No web access. To allow any public host:
    # permissions: { egress: ["@web"] }`;

/** A commented mesh.yaml for the answers; it validates as written. */
export function meshYaml(answers: InitAnswers): string {
  const model = `${answers.provider}/${answers.model}`;
  const key = KEY_NAMES[answers.provider];
  const provider =
    answers.provider === 'demo'
      ? `    # A scripted LLM on loopback: no key, no network. Swap in a real provider for real answers.\n    demo: { kind: scripted, script: ${DEMO_SCRIPT_FILE} }`
      : answers.provider === 'ollama'
        ? '    ollama: { base_url: "http://127.0.0.1:11434/v1" }'
        : `    # The key lives in the host's encrypted vault: openlegion vault set ${key}\n    ${answers.provider}: { api_key: vault:${key} }`;
  const agents = answers.agents
    .map(
      ({ name, role, web }) =>
        `  ${name}:\n    role: ${JSON.stringify(role)}\n    # soul: "Curious, terse."   # or a path to SOUL.md\n    # tools: full              # minimal | coding | messaging | full\n${web ? WEB_LINES : NO_WEB_LINES}`,
    )
    .join('\n');
  return `# ${answers.mesh}: an OpenLegion fleet. Start it with: openlegion start
# Every field is documented by: openlegion config schema
mesh:
  name: ${answers.mesh}
  port: 8420
  data_dir: .openlegion

runtime:
  kind: docker            # docker (isolated containers) | process (no isolation)
  image: openlegion-agent:latest

llm:
  default_model: ${model}
  # tiers: { fast: ${model}, complex: ${model} }
  # fallbacks: []          # models to try when the default fails
  providers:
${provider}

# Web search for agents with permissions.search: true; setup: docs/search.md
# search:
#   providers:
#     searxng: { base_url: "http://127.0.0.1:8888" }   # or brave: { api_key: vault:BRAVE_API_KEY }

agents:
${agents}
`;
}

/** The offline demo's rules, written next to mesh.yaml when the provider is `demo`. */
export const DEMO_SCRIPT = {
  file: DEMO_SCRIPT_FILE,
  text: `# The offline demo's scripted LLM. Replies follow these rules, first match wins.
models: [scripted]
rules:
  - match: { last_message: hello }
    reply: { text: "Hello! I am an OpenLegion agent in my own container; my replies come from the scripted demo LLM." }
default:
  text: "(demo LLM) You said: {{last_message}}. Set a real provider in mesh.yaml for real answers."
`,
};
