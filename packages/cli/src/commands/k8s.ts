import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import { buildK8sManifests, renderK8sManifests } from '@openlegion/host/k8s';
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
 * `openlegion k8s manifests`: the fleet of mesh.yaml as one multi-document YAML file,
 * `<out>/openlegion-<mesh>.yaml`, for `kubectl apply -f`. Nothing talks to a cluster.
 */
export async function writeK8sManifests(options: K8sManifestsOptions, output: CliOutput): Promise<number> {
  const { config, file } = await loadMeshConfig(options.config);
  const manifests = buildK8sManifests(config, await readFile(file, 'utf8'), {
    namespace: options.namespace,
    imageRegistry: options.imageRegistry,
  });
  await mkdir(options.out, { recursive: true });
  const target = path.join(options.out, `openlegion-${config.mesh.name}.yaml`);
  await writeFile(target, renderK8sManifests(manifests.objects), { mode: 0o644 });
  output.out(
    `${target}: ${manifests.objects.length} objects in namespace ${manifests.namespace} (${Object.keys(config.agents).length} agents)\n`,
  );
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
      'write the fleet as Kubernetes objects (StatefulSet per agent, host Deployment, RBAC, NetworkPolicies, token Secrets) to one YAML file',
    )
    .addOption(kit.configOption())
    .option('-o, --out <dir>', 'folder to write openlegion-<mesh>.yaml into', 'k8s')
    .option('-n, --namespace <ns>', 'namespace of every object (default openlegion-<mesh>)')
    .option(
      '--image-registry <registry>',
      'registry the cluster pulls images from, e.g. registry.example.com/team',
    )
    .action((options: K8sManifestsOptions) => kit.run(() => writeK8sManifests(options, kit.output))());
}
