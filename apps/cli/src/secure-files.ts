/**
 * Files that hold keys: written whole (a temporary file renamed into place, or linked for a
 * file that must not be replaced), mode 0600 in folders of mode 0700, and read back only when
 * nobody else may read them (a loosened mode is tightened first).
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CliError, EXIT } from './cli-error.js';

/** Makes `dir` (and its parents) with mode 0700, and tightens it when it exists looser. */
export async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await stat(dir);
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

async function writeTemp(path: string, data: string | Uint8Array, mode: number): Promise<string> {
  const tmp = `${path}.${randomBytes(8).toString('hex')}.tmp`;
  const handle = await open(tmp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return tmp;
}

/** Writes a file whole: `<name>.<random>.tmp` with `mode`, flushed, renamed into place. */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600) {
  const tmp = await writeTemp(path, data, mode);
  try {
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/**
 * Writes a file whole unless one is there already: false when another process made it first
 * (its file is kept, so two processes never end up signing with two keys they both think kept).
 */
export async function createFileOnce(
  path: string,
  data: Uint8Array,
  mode = 0o600,
): Promise<boolean> {
  await privateDir(dirname(path));
  const tmp = await writeTemp(path, data, mode);
  try {
    await link(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Reads a key file, or `undefined` when there is none; a file others could read is tightened. */
export async function readPrivateFile(path: string): Promise<Uint8Array | undefined> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!info) return undefined;
  if (!info.isFile()) throw new CliError(EXIT.badData, `${path} is not a file`);
  // Tighten a key file someone loosened, rather than sign with a key others may read.
  if ((info.mode & 0o077) !== 0) await chmod(path, 0o600);
  return new Uint8Array(await readFile(path));
}

/** Whether `path` exists. */
export async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}
