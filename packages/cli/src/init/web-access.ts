import { OpenLegionError } from '@openlegion/protocol';
import type { InitAgent } from './mesh-template.js';

/** Asks a question in the terminal with a default answer (Enter keeps it). */
export type InitQuestion = (text: string, fallback: string) => Promise<string>;

/**
 * Which agents may use the web, asked per agent in a terminal. The default is no: an agent that
 * reads the web reads prompt injection too, so a person says yes for each agent that needs it.
 */
export async function askWebAccess(
  agents: readonly InitAgent[],
  question: InitQuestion,
): Promise<InitAgent[]> {
  const answered: InitAgent[] = [];
  for (const agent of agents) {
    const answer = await question(
      `May ${agent.name} use the web (any public host; private and local addresses stay closed), y/n?`,
      'n',
    );
    answered.push({ ...agent, web: /^y(es)?$/i.test(answer.trim()) });
  }
  return answered;
}

/**
 * The agents `--web` names get the web (`--web all` gives it to every agent); the others do not.
 *
 * @throws OpenLegionError CONFIG_INVALID naming a `--web` agent that is not among the agents.
 */
export function webAccessFromFlag(agents: readonly InitAgent[], names: readonly string[]): InitAgent[] {
  const wanted = new Set(
    names
      .flatMap((name) => name.split(','))
      .map((name) => name.trim())
      .filter(Boolean),
  );
  if (wanted.has('all')) return agents.map((agent) => ({ ...agent, web: true }));
  for (const name of wanted) {
    if (!agents.some((agent) => agent.name === name))
      throw new OpenLegionError(
        'CONFIG_INVALID',
        `--web ${name}: no agent is named ${name} (agents: ${agents.map((agent) => agent.name).join(', ')}); name agents with --agent, or use --web all`,
      );
  }
  return agents.map((agent) => ({ ...agent, web: wanted.has(agent.name) }));
}
