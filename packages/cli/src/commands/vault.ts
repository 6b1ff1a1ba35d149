import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { loadMeshConfig } from '@openlegion/host/config';
import { Vault } from '@openlegion/host/vault';
import { type Command, InvalidArgumentError } from 'commander';
import type { CommandKit } from '../command-kit.js';

/** The vault of the mesh in `config` (its data dir); the key from OPENLEGION_VAULT_KEY or the key file. */
async function vaultOf(config: string): Promise<Vault> {
  const { dataDir } = await loadMeshConfig(config);
  return new Vault({ dataDir, env: process.env });
}

/**
 * A secret from standard input: typed at a prompt that does not echo it, or piped (one value; a
 * trailing newline is dropped). Never from the command line, where shells and `ps` would keep it.
 */
export async function readSecret(
  name: string,
  input: Readable & { isTTY?: boolean },
  echo: Writable,
): Promise<string> {
  if (!input.isTTY) {
    let text = '';
    for await (const chunk of input) text += String(chunk);
    return text.replace(/\r?\n$/, '');
  }
  const rl = createInterface({ input, output: echo, terminal: true });
  const muted = rl as unknown as { _writeToOutput: (text: string) => void };
  echo.write(`value of ${name} (not shown): `);
  muted._writeToOutput = () => {};
  try {
    return await new Promise<string>((resolve) => rl.question('', resolve));
  } finally {
    rl.close();
    echo.write('\n');
  }
}

/** `openlegion vault set|list|rm|import-env`: the host's encrypted secrets (no host needed). */
export function registerVaultCommands(program: Command, kit: CommandKit): void {
  const vault = program
    .command('vault')
    .description(
      "the host's encrypted secrets (<data_dir>/vault); values never shown, never on the command line",
    );
  vault
    .command('set')
    .description('store a secret: its value from standard input or a prompt that does not echo')
    .argument('<name>', 'the name mesh.yaml refers to as vault:NAME')
    .argument('[value...]', 'refused: a value on the command line would stay in shell history')
    .addOption(kit.configOption())
    .action((name: string, value: string[], options: { config: string }) =>
      kit.run(async () => {
        if (value.length > 0)
          throw new InvalidArgumentError(
            `give the value of ${name} on standard input or at the prompt, not as an argument`,
          );
        const store = await vaultOf(options.config);
        store.set(name, await readSecret(name, process.stdin, process.stderr));
        kit.output.out(`${name}: stored in ${store.file}\n`);
        return 0;
      })(),
    );
  vault
    .command('list')
    .description('the names stored and when each was set (never the values)')
    .addOption(kit.configOption())
    .option('--json', 'print JSON')
    .action((options: { config: string; json?: boolean }) =>
      kit.run(async () => {
        const entries = (await vaultOf(options.config)).list();
        if (options.json) kit.output.out(`${JSON.stringify(entries, null, 2)}\n`);
        else if (entries.length === 0) kit.output.out('the vault is empty (openlegion vault set NAME)\n');
        else for (const entry of entries) kit.output.out(`${entry.name}  set ${entry.set_at}\n`);
        return 0;
      })(),
    );
  vault
    .command('rm')
    .description('remove a secret')
    .argument('<name>')
    .addOption(kit.configOption())
    .action((name: string, options: { config: string }) =>
      kit.run(async () => {
        const removed = (await vaultOf(options.config)).remove(name);
        kit.output.out(removed ? `${name}: removed\n` : `${name}: not in the vault\n`);
        return removed ? 0 : 1;
      })(),
    );
  vault
    .command('import-env')
    .description("copy secrets from this shell's environment into the vault")
    .argument('<names...>', 'environment variable names')
    .addOption(kit.configOption())
    .action((names: string[], options: { config: string }) =>
      kit.run(async () => {
        const missing = names.filter((name) => !process.env[name]);
        if (missing.length > 0)
          throw new InvalidArgumentError(`not set in this environment: ${missing.join(', ')}`);
        const store = await vaultOf(options.config);
        for (const name of names) store.set(name, process.env[name] as string);
        kit.output.out(`${names.join(', ')}: stored in ${store.file}\n`);
        return 0;
      })(),
    );
}
