import { docker } from './docker-cli.js';
import { waitUntil } from './wait-until.js';

/**
 * A throwaway "outside site": a web server container of ours (the agent image's node) on its own
 * network at `address`:8080, answering with `handler` (`(request, response) => …` source). The
 * tests reach only the project's own containers, never another address. Resolves once it listens;
 * gives back a function that removes it and its network.
 */
export async function startSiteContainer(options: {
  name: string;
  subnet: string;
  address: string;
  handler: string;
}): Promise<() => Promise<void>> {
  const { name } = options;
  const stop = async () => {
    await docker('rm', '-f', name).catch(() => '');
    await docker('network', 'rm', name).catch(() => '');
  };
  await stop();
  await docker('network', 'create', '--subnet', options.subnet, name);
  const server = `require('http').createServer(${options.handler}).listen(8080, () => console.log('listening'))`;
  await docker(
    'run',
    '-d',
    '--name',
    name,
    '--network',
    name,
    '--ip',
    options.address,
    '--user',
    '1000',
    'openlegion-agent:latest',
    'node',
    '-e',
    server,
  );
  await waitUntil(async () => (await docker('logs', name)).includes('listening'), 'the site to listen');
  return stop;
}
