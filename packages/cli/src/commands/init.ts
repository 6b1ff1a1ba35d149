import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { loadMeshConfig, parseMeshConfig } from '@openlegion/host/config';
import { Vault } from '@openlegion/host/vault';
import { OpenLegionError } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { DEFAULT_MODELS, DEMO_SCRIPT, type InitAnswers, meshYaml } from '../init/mesh-template.js';
import { askWebAccess, webAccessFromFlag } from '../init/web-access.js';
import { readSecret } from './vault.js';

interface InitFlags {
  file: string;
  name?: string;
  agent?: string[];
  web?: string[];
  provider?: InitAnswers['provider'];
  model?: string;
  force?: boolean;
}

const PROVIDERS: InitAnswers['provider'][] = ['demo', 'openai', 'anthropic', 'ollama'];
const DEFAULT_AGENTS = [{ name: 'assistant', role: 'Helps with whatever is asked' }];

/** `openlegion init`: write a first mesh.yaml, by questions in a terminal or by flags. */
export function registerInitCommand(program: Command, kit: CommandKit): void {
  program
    .command('init')
    .description(
      'write a commented mesh.yaml that validates (asks in a terminal; flags and defaults otherwise)',
    )
    .option('-f, --file <file>', 'where to write it', 'mesh.yaml')
    .option('--name <mesh>', 'the mesh name')
    .option('--agent <name:role...>', 'an agent and its role (repeat for more)')
    .option(
      '--web <agent...>',
      "agents that may use the web (egress: ['@web'], any public host); 'all' for every agent; default none",
    )
    .option('--provider <provider>', `the LLM provider: ${PROVIDERS.join(', ')}`)
    .option('--model <model>', 'the model name at that provider')
    .option('--force', 'overwrite an existing file without asking')
    .addHelpText(
      'after',
      '\nExample:\n  openlegion init --name research --agent researcher:"Finds sources" --agent writer:"Writes" --web researcher --provider demo\n',
    )
    .action((flags: InitFlags) => kit.run(() => init(flags, kit))());
}

async function init(flags: InitFlags, kit: CommandKit): Promise<number> {
  const terminal = Boolean(process.stdin.isTTY);
  const ask = terminal ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  try {
    const file = path.resolve(flags.file);
    if (existsSync(file) && !flags.force) {
      const overwrite = ask
        ? (await ask.question(`${flags.file} exists. Overwrite it? [y/N] `)).trim().toLowerCase() === 'y'
        : false;
      if (!overwrite) {
        kit.output.err(`openlegion: ${flags.file} exists; nothing written (use --force to overwrite)\n`);
        return 1;
      }
    }
    const question = async (text: string, fallback: string) =>
      ask ? (await ask.question(`${text} [${fallback}] `)).trim() || fallback : fallback;
    const mesh =
      flags.name ??
      (await question(
        'Mesh name?',
        path
          .basename(path.dirname(file))
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-') || 'openlegion',
      ));
    const named = flags.agent?.map(parseAgentFlag) ?? (ask ? await askAgents(question) : DEFAULT_AGENTS);
    // Asked per agent in a terminal; otherwise only the agents --web names may use the web.
    const agents =
      flags.web || !ask ? webAccessFromFlag(named, flags.web ?? []) : await askWebAccess(named, question);
    const provider =
      flags.provider ??
      ((await question(`Provider (${PROVIDERS.join(', ')})?`, 'demo')) as InitAnswers['provider']);
    if (!PROVIDERS.includes(provider))
      throw new OpenLegionError(
        'CONFIG_INVALID',
        `--provider ${provider}: use one of ${PROVIDERS.join(', ')}`,
      );
    const model = flags.model ?? (await question('Model?', DEFAULT_MODELS[provider]));
    const text = meshYaml({ mesh, agents, provider, model });
    parseMeshConfig(text, flags.file); // what init writes must validate
    await writeFile(file, text);
    if (provider === 'demo')
      await writeFile(path.join(path.dirname(file), DEMO_SCRIPT.file), DEMO_SCRIPT.text, {
        flag: 'wx',
      }).catch(() => {});
    kit.output.out(
      `wrote ${flags.file}: mesh ${mesh}, ${agents.length} agent${agents.length === 1 ? '' : 's'}, ${provider}/${model}, ${webSummary(agents)}\n`,
    );
    if (provider === 'openai' || provider === 'anthropic') {
      // The key goes into the vault when it is at hand: in this shell's environment, or typed at a
      // prompt that does not echo it (a terminal only; Enter skips).
      const keyName = `${provider.toUpperCase()}_API_KEY`;
      ask?.close();
      const key =
        process.env[keyName] || (terminal ? await readSecret(keyName, process.stdin, process.stdout) : '');
      if (key) {
        const vault = new Vault({ dataDir: (await loadMeshConfig(file)).dataDir, env: process.env });
        vault.set(keyName, key);
        kit.output.out(`${keyName}: stored in the vault (${vault.file})\n`);
      } else kit.output.out(`next: keep the key in the host's vault: openlegion vault set ${keyName}\n`);
    }
    kit.output.out('then: openlegion start\n');
    return 0;
  } finally {
    ask?.close();
  }
}

/** Which agents may use the web, in the line init prints. */
function webSummary(agents: InitAnswers['agents']): string {
  const web = agents.filter((agent) => agent.web).map((agent) => agent.name);
  return web.length > 0 ? `web for ${web.join(', ')}` : 'no web access (--web NAME to give it)';
}

function parseAgentFlag(value: string): { name: string; role: string } {
  const [name = '', ...role] = value.split(':');
  if (!/^[a-z][a-z0-9-]*$/.test(name)) {
    throw new OpenLegionError(
      'CONFIG_INVALID',
      `--agent ${value}: the name must be lower-case letters, digits and -, e.g. researcher:"Finds sources"`,
    );
  }
  return { name, role: role.join(':').trim() || `The ${name}` };
}

async function askAgents(question: (text: string, fallback: string) => Promise<string>) {
  const names = (await question('Agents (comma-separated names)?', 'assistant'))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const agents = [];
  for (const name of names)
    agents.push(parseAgentFlag(`${name}:${await question(`Role of ${name}?`, `The ${name}`)}`));
  return agents;
}
