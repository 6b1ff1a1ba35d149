import { bundledSkillsDir, currentSkillHost, loadSkills, skillRoots } from '@openlegion/agent/skills';
import { type SkillEntry, skillRemovedSchema, skillsListSchema } from '@openlegion/protocol';
import type { Command } from 'commander';
import type { CommandKit } from '../command-kit.js';
import { connectToHost, errorFromResponse, type HostConnection, requestJson } from '../host-connection.js';
import {
  type CheckedSkill,
  checkSkillFolder,
  fleetSkillsDir,
  installSkillInto,
  readSkillFile,
  removeSkillFrom,
  SKILL_SOURCE_FILE,
} from './skill-install.js';

interface SkillsOptions {
  config: string;
  agent?: string;
  force?: boolean;
}

/**
 * `openlegion skills list [AGENT] | install PATH [--agent A] | remove NAME [--agent A]`. Without an
 * agent they work on the fleet's `skills/` folder beside mesh.yaml (no host needed); with one,
 * through the host on that agent (its view with reasons, its workspace's `skills/`).
 */
export function registerSkillsCommands(program: Command, kit: CommandKit): void {
  const skills = program
    .command('skills')
    .description('skills in the Agent Skills format: list, install, remove');
  skills
    .command('list')
    .description("list the fleet's skills, or what an agent sees (with the reason a skill is left out)")
    .argument('[agent]', 'an agent: its view, through the host')
    .addOption(kit.configOption())
    .action((agent: string | undefined, options: SkillsOptions) =>
      kit.run(async () => {
        const entries = agent
          ? await agentSkills(await connectToHost(options.config), agent)
          : await fleetSkills(options.config);
        kit.output.out(formatSkills(entries));
        return 0;
      })(),
    );
  skills
    .command('install')
    .description("copy a skill folder into the fleet's skills/ (or an agent's workspace with --agent)")
    .argument('<path>', 'the skill folder (holding SKILL.md), e.g. a folder of a cloned git repository')
    .option('--agent <agent>', "install into this agent's workspace skills/, through the host")
    .option('--force', 'replace an installed skill of the same name')
    .addOption(kit.configOption())
    .action((path: string, options: SkillsOptions) =>
      kit.run(async () => {
        const skill = await checkSkillFolder(path);
        const where = options.agent
          ? await installIntoAgent(await connectToHost(options.config), options.agent, skill)
          : await installSkillInto(skill, fleetSkillsDir(options.config), options.force === true);
        const commit = skill.record.commit ? ` at commit ${skill.record.commit.slice(0, 12)}` : '';
        kit.output.out(`installed ${skill.name} into ${where}${commit}\n`);
        return 0;
      })(),
    );
  skills
    .command('remove')
    .description("remove a skill from the fleet's skills/ (or an agent's workspace with --agent)")
    .argument('<name>', 'the skill name')
    .option('--agent <agent>', "remove it from this agent's workspace, through the host")
    .addOption(kit.configOption())
    .action((name: string, options: SkillsOptions) =>
      kit.run(async () => {
        if (options.agent) {
          const host = await connectToHost(options.config);
          await requestJson(
            host,
            'DELETE',
            `${agentRoute(options.agent)}/${encodeURIComponent(name)}`,
            skillRemovedSchema,
          );
          kit.output.out(`removed ${name} from ${options.agent}'s workspace\n`);
        } else {
          kit.output.out(`removed ${await removeSkillFrom(name, fleetSkillsDir(options.config))}\n`);
        }
        return 0;
      })(),
    );
}

function agentRoute(agent: string): string {
  return `/api/agents/${encodeURIComponent(agent)}/skills`;
}

async function agentSkills(host: HostConnection, agent: string): Promise<SkillEntry[]> {
  return (await requestJson(host, 'GET', `${agentRoute(agent)}/`, skillsListSchema)).skills;
}

/** The fleet folder and the bundled skills, checked as an agent on this machine would. */
async function fleetSkills(configFile: string): Promise<SkillEntry[]> {
  const roots = skillRoots({
    workspace: '/nonexistent',
    fleetDir: fleetSkillsDir(configFile),
    bundledDir: bundledSkillsDir(),
  });
  // No workspace here: the roots' last (workspace) entry is left out.
  const snapshot = await loadSkills(roots.slice(0, -1), currentSkillHost([]));
  return snapshot.entries;
}

/** Each file PUT into the agent's workspace under skills/NAME/ (the workspace API, 1 MiB a file). */
async function installIntoAgent(host: HostConnection, agent: string, skill: CheckedSkill): Promise<string> {
  const put = async (file: string, body: Buffer) => {
    const route = `/api/agents/${encodeURIComponent(agent)}/workspace/skills/${skill.name}/${file
      .split(/[\\/]/)
      .map(encodeURIComponent)
      .join('/')}`;
    const response = await fetch(`${host.url}${route}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(body),
    });
    if (!response.ok) throw await errorFromResponse(response);
  };
  for (const file of skill.files) await put(file, await readSkillFile(skill, file));
  await put(SKILL_SOURCE_FILE, Buffer.from(`${JSON.stringify(skill.record, null, 2)}\n`));
  return `${agent}:skills/${skill.name}`;
}

/** One line per skill: name, source, and ok or the reason it is left out. */
export function formatSkills(entries: readonly SkillEntry[]): string {
  if (entries.length === 0) return 'no skills\n';
  const width = Math.max(...entries.map((entry) => entry.name.length));
  return entries
    .map((entry) => {
      const status = entry.eligible ? 'ok' : `left out: ${entry.reason ?? 'unknown'}`;
      return `${entry.name.padEnd(width)}  ${entry.source.padEnd(9)}  ${status}\n`;
    })
    .join('');
}
