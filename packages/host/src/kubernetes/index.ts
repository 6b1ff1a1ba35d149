export {
  buildK8sManifests,
  type K8sFile,
  type K8sManifestOptions,
  type K8sManifests,
  k8sFiles,
  renderK8sManifests,
} from './k8s-manifests.js';
export { isDns1123Label } from './k8s-names.js';
export type { K8sObject } from './k8s-object.js';
