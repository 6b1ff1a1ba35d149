import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadMeshConfig } from '@openlegion/host/config';
import {
  type AnswerSchema,
  createJsonClient,
  errorFromBody,
  type JsonClient,
  type JsonRequest,
} from '@openlegion/infra/http';
import { OpenLegionError } from '@openlegion/protocol';

/** How the CLI reaches a running host: its URL and the operator token from `<data_dir>`. */
export interface HostConnection {
  mesh: string;
  /** The mesh's data dir (the REPL keeps its history there). */
  dataDir: string;
  url: string;
  token: string;
  /** A raw call, for answers that stream (chat) or are not JSON (exports, instruction files). */
  request: (method: string, route: string, body?: unknown, signal?: AbortSignal) => Promise<Response>;
  /** JSON calls whose answers are parsed with protocol schemas: use {@link requestJson}. */
  client: JsonClient;
}

export async function connectToHost(configFile: string): Promise<HostConnection> {
  const { config, dataDir } = await loadMeshConfig(configFile);
  const host = config.mesh.host === '0.0.0.0' ? '127.0.0.1' : config.mesh.host;
  const url = `http://${host}:${config.mesh.port}`;
  const notRunning = () =>
    new OpenLegionError(
      'MESH_NOT_RUNNING',
      `no host is running for mesh "${config.mesh.name}" at ${url}; start it with: openlegion start`,
    );
  let token: string;
  try {
    token = (await readFile(path.join(dataDir, 'operator-token'), 'utf8')).trim();
  } catch {
    throw notRunning();
  }
  const request = async (method: string, route: string, body?: unknown, signal?: AbortSignal) => {
    try {
      return await fetch(`${url}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (cause) {
      if (signal?.aborted) throw cause;
      throw Object.assign(notRunning(), { cause });
    }
  };
  const client = createJsonClient({
    baseUrl: url,
    token,
    // Operator calls may wait on an agent (restart, memory search): as long as fetch did, no limit
    // but the user's patience.
    timeoutMs: 0,
    unreachable: (_target, cause) => Object.assign(notRunning(), { cause }),
  });
  return { mesh: config.mesh.name, dataDir, url, token, request, client };
}

/** Turn a non-2xx host response into the error it carries. */
export async function errorFromResponse(response: Response): Promise<OpenLegionError> {
  return errorFromBody(
    response.status,
    await response.text(),
    (status, text) => new OpenLegionError('INTERNAL', `host answered ${status}: ${text.slice(0, 500)}`),
  );
}

/**
 * A host call whose answer is JSON: the body parsed with `schema` (a protocol answer schema), or
 * the error the host answered. An answer the schema refuses is `INTERNAL` naming the field.
 */
export function requestJson<T>(
  host: Pick<HostConnection, 'client'>,
  method: JsonRequest['method'],
  route: string,
  schema: AnswerSchema<T>,
  body?: unknown,
): Promise<T> {
  return host.client.call({ method, path: route, body }, schema);
}

/** A host call whose answer does not matter, only that it succeeded (or the error it carries). */
export async function requestDone(
  host: Pick<HostConnection, 'client'>,
  method: JsonRequest['method'],
  route: string,
  body?: unknown,
): Promise<void> {
  await host.client.send({ method, path: route, body });
}
