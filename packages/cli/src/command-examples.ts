import type { Command } from 'commander';

/** One example per command, shown at the end of its `--help`. Keyed by the command's path. */
export const COMMAND_EXAMPLES: Record<string, string> = {
  start: 'openlegion start --detach',
  stop: 'openlegion stop',
  status: 'openlegion status --json',
  send: 'openlegion send researcher "summarise today\'s notes"',
  chat: 'openlegion chat writer',
  restart: 'openlegion restart researcher',
  init: 'openlegion init --name research --agent researcher:"Finds sources" --provider demo',
  'config validate': 'openlegion config validate mesh.yaml',
  'config schema': 'openlegion config schema > mesh.schema.json',
  'k8s manifests': 'openlegion k8s manifests --out k8s --image-registry registry.example.com/team',
  traces: 'openlegion traces 3f2a9c1e-…',
  costs: 'openlegion costs --agent researcher',
  'llm health': 'openlegion llm health',
  'vault set': 'openlegion vault set OPENAI_API_KEY   (then paste the key; it is not shown)',
  'vault list': 'openlegion vault list',
  'vault rm': 'openlegion vault rm OLD_TOKEN',
  'vault import-env': 'openlegion vault import-env OPENAI_API_KEY ANTHROPIC_API_KEY',
  'blackboard list': 'openlegion blackboard list research/',
  'blackboard get': 'openlegion blackboard get research/tides',
  'blackboard set': 'openlegion blackboard set plan/today \'{"focus":"tides"}\'',
  'blackboard rm': 'openlegion blackboard rm plan/today',
  'pubsub subscriptions': 'openlegion pubsub subscriptions',
  'pubsub publish': 'openlegion pubsub publish research.done \'{"key":"research/tides"}\'',
  'pubsub tail': "openlegion pubsub tail 'research.*' --follow",
  'cron list': 'openlegion cron list',
  'cron pause': 'openlegion cron pause researcher#0',
  'cron resume': 'openlegion cron resume researcher#0',
  'cron run': 'openlegion cron run researcher#0',
  'cron rm': 'openlegion cron rm researcher@m3x0',
  memory: 'openlegion memory researcher search "where does Caroline work"',
  lcm: 'openlegion lcm researcher grep staging port',
  'mcp list': 'openlegion mcp list',
  'mcp tools': 'openlegion mcp tools researcher everything',
  'mcp call': 'openlegion mcp call researcher everything echo \'{"message":"hi"}\'',
  'skills list': 'openlegion skills list researcher',
  'skills install': 'openlegion skills install ../agent-skills/skills/pdf --agent researcher',
  'skills remove': 'openlegion skills remove pdf',
  subagents: 'openlegion subagents researcher',
  spawn: 'openlegion spawn summariser "summarise research/tides in 100 words"',
  instructions: 'openlegion instructions researcher AGENTS.md --set ./researcher-AGENTS.md',
  'telegram pair': 'openlegion telegram pair',
  'workflow validate': 'openlegion workflow validate examples/workflows/publish-article.yaml',
  'workflow list': 'openlegion workflow list',
  'workflow run': 'openlegion workflow run publish-article --input topic="tidal power"',
  'workflow status': 'openlegion workflow status run-m3x9k2ab-7f2c1e',
  'workflow cancel': 'openlegion workflow cancel run-m3x9k2ab-7f2c1e',
  'workflow approve': 'openlegion workflow approve run-m3x9k2ab-7f2c1e approve --note "ship it"',
  approvals: 'openlegion approvals',
  approve: 'openlegion approve ap-5f0c9a1e2b3d4c5e6f708192a3b4c5d6 --note "go ahead"',
  reject: 'openlegion reject run-m3x9k2ab-7f2c1e:approve --note "not this week"',
  'workflow reject': 'openlegion workflow reject run-m3x9k2ab-7f2c1e approve --note "off-brand"',
  'telegram status': 'openlegion telegram status --json',
  'telegram revoke': 'openlegion telegram revoke 123456789',
  'channels dead-letters': 'openlegion channels dead-letters --retry 12',
};

/** The path of a command below the program: `cron list`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Every command that runs something (no subcommands of its own). */
export function leafCommands(program: Command): Command[] {
  return program.commands.flatMap((command) =>
    command.commands.length > 0 ? leafCommands(command) : [command],
  );
}

/** Add each command's example to its help. */
export function addExamples(program: Command): void {
  for (const command of leafCommands(program)) {
    const example = COMMAND_EXAMPLES[commandPath(command)];
    if (example) command.addHelpText('after', `\nExample:\n  ${example}\n`);
  }
}
