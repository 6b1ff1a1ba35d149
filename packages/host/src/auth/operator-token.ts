import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateToken } from '@openlegion/infra/http';

export const OPERATOR_TOKEN_FILE = 'operator-token';
const OWNER_ONLY_MODE = 0o600;
const GROUP_OR_OTHER_BITS = 0o077;

/**
 * The operator token in `<dataDir>/operator-token`: read it, or create a random one (mode 0600) when
 * the file is missing or empty. A file readable by group or others is narrowed to 0600.
 */
export async function loadOrCreateOperatorToken(dataDir: string): Promise<string> {
  const file = join(dataDir, OPERATOR_TOKEN_FILE);
  const existing = await readTokenFile(file);
  if (existing) {
    await narrowMode(file);
    return existing;
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const token = generateToken();
  await writeFile(file, `${token}\n`, { mode: OWNER_ONLY_MODE });
  // writeFile keeps the mode of a file that already existed (empty), and the umask may narrow it.
  await chmod(file, OWNER_ONLY_MODE);
  return token;
}

async function readTokenFile(file: string): Promise<string | undefined> {
  try {
    const token = (await readFile(file, 'utf8')).trim();
    return token === '' ? undefined : token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function narrowMode(file: string): Promise<void> {
  const { mode } = await stat(file);
  if ((mode & GROUP_OR_OTHER_BITS) !== 0) await chmod(file, OWNER_ONLY_MODE);
}
