import type { SkillsList } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import type { SkillSnapshot } from './skill-catalog.js';

/**
 * `GET /skills/`: every skill folder this agent sees, the eligible ones and the others with the
 * reason they are left out (`openlegion skills list AGENT`, through the host).
 */
export function skillsRoutes(load: () => Promise<SkillSnapshot>) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/skills/', async (): Promise<SkillsList> => ({ skills: (await load()).entries }));
  };
}
