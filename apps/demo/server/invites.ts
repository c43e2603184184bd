/**
 * Short invite links (see src/invite-link.ts): the page seals an invite code under a key that
 * stays in the link's fragment, and keeps only the sealed bytes here, under a short random id.
 * So this server holds nothing it can open, and the link is about 60 characters, not 1,050.
 * Each is a file `<dir>/<id>`, gone after {@link INVITE_DAYS} days.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** An id: 12 characters of base64url (9 random bytes). */
export const INVITE_ID = /^[A-Za-z0-9_-]{12}$/;
/** A sealed invite is an invite code (about 1 KiB, more with holders) and two names. */
export const MAX_INVITE_BYTES = 16 * 1024;
export const MAX_INVITES = 10_000;
export const INVITE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface InviteStore {
  /** Keeps `sealed`; its id, or `undefined` when the store is full. */
  put(sealed: Uint8Array): Promise<string | undefined>;
  /** The sealed bytes of `id`, or `undefined` when there are none (or they expired). */
  get(id: string): Promise<Uint8Array | undefined>;
}

export function inviteStore(dir: string): InviteStore {
  const made = mkdir(dir, { recursive: true, mode: 0o700 });
  const expired = async (file: string) =>
    Date.now() - (await stat(file)).mtimeMs > INVITE_DAYS * DAY_MS;
  return {
    async put(sealed) {
      await made;
      const names = await readdir(dir);
      if (names.length >= MAX_INVITES) {
        for (const name of names) {
          if (await expired(join(dir, name)).catch(() => false))
            await rm(join(dir, name), { force: true });
        }
        if ((await readdir(dir)).length >= MAX_INVITES) return undefined;
      }
      const id = randomBytes(9).toString('base64url');
      await writeFile(join(dir, id), sealed, { mode: 0o600, flag: 'wx' });
      return id;
    },
    async get(id) {
      if (!INVITE_ID.test(id)) return undefined;
      await made;
      const file = join(dir, id);
      try {
        if (await expired(file)) {
          await rm(file, { force: true });
          return undefined;
        }
        return new Uint8Array(await readFile(file));
      } catch {
        return undefined;
      }
    },
  };
}
