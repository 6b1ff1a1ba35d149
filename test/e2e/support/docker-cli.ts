import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Run the docker client; resolves to stdout. */
export async function docker(...args: string[]): Promise<string> {
  const { stdout } = await exec('docker', args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

export async function dockerAnswers(): Promise<boolean> {
  try {
    await docker('info', '--format', '{{.ServerVersion}}');
    return true;
  } catch {
    return false;
  }
}

/** Names of containers (any state) and networks labelled for `mesh`. */
export async function meshLeftovers(mesh: string): Promise<{ containers: string[]; networks: string[] }> {
  const filter = `label=openlegion.mesh=${mesh}`;
  const containers = (await docker('ps', '-a', '--filter', filter, '--format', '{{.Names}}'))
    .split('\n')
    .filter(Boolean);
  const networks = (await docker('network', 'ls', '--filter', filter, '--format', '{{.Name}}'))
    .split('\n')
    .filter(Boolean);
  return { containers, networks };
}

export interface ContainerInspect {
  Config: { User: string; Env: string[] };
  HostConfig: {
    ReadonlyRootfs: boolean;
    CapDrop: string[] | null;
    SecurityOpt: string[] | null;
    Init: boolean | null;
    Memory: number;
    PidsLimit: number | null;
  };
  NetworkSettings: { Networks: Record<string, { IPAddress?: string } | undefined> };
}

export async function inspectContainer(name: string): Promise<ContainerInspect> {
  const [info] = JSON.parse(await docker('inspect', name)) as ContainerInspect[];
  if (!info) throw new Error(`no container ${name}`);
  return info;
}

/** Remove everything of a test mesh, its agents' data volumes too (a real mesh keeps those). */
export async function removeMesh(mesh: string): Promise<void> {
  const { containers, networks } = await meshLeftovers(mesh);
  if (containers.length > 0) await docker('rm', '-f', ...containers);
  if (networks.length > 0) await docker('network', 'rm', ...networks);
  const volumes = (await docker('volume', 'ls', '-q', '--filter', `label=openlegion.mesh=${mesh}`))
    .split('\n')
    .filter(Boolean);
  if (volumes.length > 0) await docker('volume', 'rm', '-f', ...volumes);
}

/** Everything a container wrote, stdout and stderr. */
export async function containerOutput(name: string): Promise<string> {
  const { stdout, stderr } = await exec('docker', ['logs', name], { maxBuffer: 16 * 1024 * 1024 });
  return stdout + stderr;
}
