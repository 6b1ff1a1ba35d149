import { type AgentResources, parseByteSize } from '../fleet/index.js';

const MI = 1024 ** 2;

/** Kubernetes' quantities for an agent's limits. */
export interface K8sQuantities {
  memory: string;
  cpu: string;
}

/**
 * mesh.yaml resources as Kubernetes quantities: memory in Mi when whole (binary units, as the
 * docker runtime reads them), else bytes; cpus in millicores. `pids` has no per-container field in
 * Kubernetes (it is the kubelet's `podPidsLimit`), so it is not here; docs/scale-out.md says so.
 */
export function toK8sQuantities(resources: AgentResources): K8sQuantities {
  const bytes = parseByteSize(resources.memory);
  return {
    memory: bytes % MI === 0 ? `${bytes / MI}Mi` : String(bytes),
    cpu: `${Math.max(1, Math.round(resources.cpus * 1000))}m`,
  };
}
