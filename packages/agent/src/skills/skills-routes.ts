import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRequest } from '@openlegion/infra/http';
import { OpenLegionError, type SkillRemoved, type SkillsList } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SkillSnapshot } from './skill-catalog.js';
import { SKILL_NAME_PATTERN } from './skill-frontmatter.js';

const removeParams = z.object({
  name: z.string().regex(SKILL_NAME_PATTERN, 'a skill name: lowercase letters, digits and hyphens'),
});

/**
 * `GET /skills/`: every skill folder this agent sees, the eligible ones and the others with the
 * reason they are left out (`openlegion skills list AGENT`, through the host). `DELETE
 * /skills/NAME` removes a skill from the agent's workspace (`skills remove NAME --agent A`); the
 * bundled and fleet skills are not the agent's to remove.
 */
export function skillsRoutes(load: () => Promise<SkillSnapshot>, workspace: string) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/skills/', async (): Promise<SkillsList> => ({ skills: (await load()).entries }));
    app.delete('/skills/:name', async (request): Promise<SkillRemoved> => {
      const { name } = parseRequest(removeParams, request.params, 'params');
      const folder = join(workspace, 'skills', name);
      const info = await lstat(folder).catch(() => undefined);
      if (!info) {
        throw new OpenLegionError('SKILL_NOT_FOUND', `no skill "${name}" in the agent's workspace`);
      }
      // A symlink is removed, never what it points to.
      await rm(folder, { recursive: info.isDirectory(), force: true });
      return { removed: name };
    });
  };
}
