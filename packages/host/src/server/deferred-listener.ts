import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';

/**
 * Plain HTTP servers that listen at once and hand requests to the app once it is built: the
 * host takes its port before any agent starts, and loads fastify while Docker starts agents.
 * Requests that arrive before the app wait for it.
 */
export class DeferredListener {
  #servers: Server[] = [];
  #serve: (app: FastifyInstance) => void = () => {};
  readonly #app = new Promise<FastifyInstance>((resolve) => {
    this.#serve = resolve;
  });
  #built: FastifyInstance | undefined;

  /** Listen on every address; a port in use becomes MESH_PORT_IN_USE naming it. */
  async listen(addresses: readonly string[], port: number): Promise<void> {
    const handler = (request: IncomingMessage, response: ServerResponse) => {
      void this.#app.then((app) => app.routing(request, response));
    };
    for (const host of addresses) {
      const server = createServer(handler);
      server.listen(port, host);
      try {
        await once(server, 'listening');
      } catch (error) {
        await this.close();
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new OpenLegionError(
            'MESH_PORT_IN_USE',
            `port ${port} on ${host} is already in use (another openlegion host, or another program); stop it or set mesh.port in mesh.yaml`,
            { cause: error },
          );
        }
        throw error;
      }
      this.#servers.push(server);
    }
  }

  /** Route every request, waiting or to come, to `app` (ready). */
  serve(app: FastifyInstance): void {
    this.#built = app;
    this.#serve(app);
  }

  /** Close the servers (cutting open connections) and the app. */
  async close(): Promise<void> {
    const servers = this.#servers;
    this.#servers = [];
    await Promise.all(
      servers.map((server) => {
        server.closeAllConnections();
        return new Promise<void>((resolve) => server.close(() => resolve()));
      }),
    );
    await this.#built?.close();
  }
}
