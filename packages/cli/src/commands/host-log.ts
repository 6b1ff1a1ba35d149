import { destination } from 'pino';

/**
 * Where `openlegion start` logs: `<data_dir>/host.log`, created 0600. The file opens asynchronously,
 * after the start has made the data dir's existing files private, so its mode must be set at
 * creation: a first start's log was left world-readable when the open came late.
 */
export function hostLogDestination(file: string): ReturnType<typeof destination> {
  return destination({ dest: file, mode: 0o600 });
}
