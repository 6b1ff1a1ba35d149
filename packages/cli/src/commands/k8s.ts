import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { buildK8sManifests, k8sFiles } from '@openlegion/host/kubernetes';
import type { Command } from 'commander';
import type { CliOutput } from '../cli-output.js';
import type { CommandKit } from '../command-kit.js';

export interface K8sManifestsOptions {
  config: string;
  out: string;
  namespace?: string;
  imageRegistry?: string;
}

/**
 * `openlegion k8s manifests`: the fleet of mesh.yaml as multi-document YAML for `kubectl apply -f`,
 * `<out>/openlegion-<mesh>.yaml` and the token Secrets' placeholders beside it in
 * `openlegion-<mesh>-secrets.yaml`. Nothing talks to a cluster.
 */
export async function writeK8sManifests(options: K8sManifestsOptions, output: CliOutput): Promise<number> {
  const { config, file } = await loadMeshConfig(options.config);
  const manifests = buildK8sManifests(config, await readFile(file, 'utf8'), {
    namespace: options.namespace,
    imageRegistry: options.imageRegistry,
  });
  await mkdir(options.out, { recursive: true });
  for (const file of k8sFiles(manifests)) {
    const target = path.join(options.out, file.name);
    await writeFile(target, file.text, { mode: 0o644 });
    const count = file.text.match(/^kind: /gm)?.length ?? 0;
    output.out(`${target}: ${count} objects in namespace ${manifests.namespace}\n`);
  }
  for (const warning of manifests.warnings) output.err(`warning: ${warning}\n`);
  return 0;
}

/** `openlegion k8s manifests`: Kubernetes on paper (docs/scale-out.md). */
export function registerK8sCommands(program: Command, kit: CommandKit): void {
  const k8s = program
    .command('k8s')
    .description('Kubernetes manifests for the fleet (no cluster is contacted)');
  k8s
    .command('manifests')
    .description(
      'write the fleet as Kubernetes objects (StatefulSet per agent, host Deployment, RBAC, NetworkPolicies) and its token Secrets (placeholders) to two YAML files',
    )
    .addOption(kit.configOption())
    .option(
      '-o, --out <dir>',
      'folder to write openlegion-<mesh>.yaml and openlegion-<mesh>-secrets.yaml into',
      'k8s',
    )
    .option('-n, --namespace <ns>', 'namespace of every object (default openlegion-<mesh>)')
    .option(
      '--image-registry <registry>',
      'registry the cluster pulls images from, e.g. registry.example.com/team',
    )
    .action((options: K8sManifestsOptions) => kit.run(() => writeK8sManifests(options, kit.output))());
}
