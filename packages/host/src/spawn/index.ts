export { spawnFeature } from './spawn-feature.js';
export { SPAWN_MIGRATIONS, SpawnRepository } from './spawn-repository.js';
export { resultMessage, type SpawnCaller, SpawnService } from './spawn-service.js';
