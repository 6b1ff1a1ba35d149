import { randomUUID } from 'node:crypto';
import { lstat, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseRequest } from '@openlegion/infra/http';
import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { assertSingleLink, ensureParentDir, resolveWorkspaceFile, routeRefusal } from './workspace-path.js';

/** Workspace files are notes and instructions; anything larger belongs elsewhere. */
export const WORKSPACE_FILE_MAX_BYTES = 1024 * 1024;

const fileParams = z.object({ '*': z.string() });

/**
 * `GET /workspace/` (the files, recursively), `GET /workspace/<file>` (its text) and
 * `PUT /workspace/<file>` (the raw body becomes the file, written atomically) for the operator,
 * who reaches them through the host. Confined to the workspace (the file tools' resolver); a file
 * with more than one name (hard link) is not written. The host answers the operator's AGENTS.md
 * and SOUL.md from its own copy, so these routes see those names only for `?from=workspace`.
 */
export function workspaceRoutes(workspace: string) {
  return async (app: FastifyInstance): Promise<void> => {
    // The body is the file itself, whatever its type (the host forwards it as it came).
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: 2 * WORKSPACE_FILE_MAX_BYTES },
      (_request, body, done) => done(null, body),
    );

    app.get('/workspace/*', async (request, reply) => {
      const file = parseRequest(fileParams, request.params, 'params')['*'];
      if (file === '') return { files: await listFiles(workspace) };
      const target = (await resolveWorkspaceFile(workspace, file)).absolute;
      const info = await stat(target).catch(() => undefined);
      if (!info?.isFile()) {
        throw new OpenLegionError('AGENT_WORKSPACE_FILE_NOT_FOUND', `no workspace file "${file}"`);
      }
      if (info.size > WORKSPACE_FILE_MAX_BYTES) throw tooLarge(file, info.size);
      return reply.type('text/plain; charset=utf-8').send(await readFile(target, 'utf8'));
    });

    app.put('/workspace/*', async (request, reply) => {
      const file = parseRequest(fileParams, request.params, 'params')['*'];
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (body.length > WORKSPACE_FILE_MAX_BYTES) throw tooLarge(file, body.length);
      const resolved = await resolveWorkspaceFile(workspace, file);
      const target = resolved.absolute;
      if ((await stat(target).catch(() => undefined))?.isDirectory()) {
        throw new OpenLegionError('AGENT_WORKSPACE_PATH_INVALID', `"${file}" is a folder, not a file`, {
          details: { field: 'file' },
        });
      }
      await assertSingleLink(resolved, routeRefusal(file));
      await ensureParentDir(target);
      // Written beside the target and renamed over it: a reader never sees half a file.
      const temporary = `${target}.${randomUUID()}.tmp`;
      try {
        await writeFile(temporary, body);
        await rename(temporary, target);
      } finally {
        await rm(temporary, { force: true });
      }
      return reply.code(200).send({ file, bytes: body.length });
    });
  };
}

function tooLarge(file: string, bytes: number): OpenLegionError {
  return new OpenLegionError(
    'AGENT_WORKSPACE_FILE_TOO_LARGE',
    `workspace file "${file}" is ${bytes} bytes; the limit is ${WORKSPACE_FILE_MAX_BYTES}`,
  );
}

/** Regular files under the workspace (symlinks are not followed), with their sizes. */
async function listFiles(workspace: string): Promise<{ path: string; bytes: number }[]> {
  const entries = await readdir(workspace, { recursive: true, withFileTypes: true });
  const files: { path: string; bytes: number }[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files.push({ path: relative(workspace, full), bytes: (await lstat(full)).size });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
