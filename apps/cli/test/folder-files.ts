/**
 * Data folders as a test sees them: every file under a folder, and a small two-way sync service
 * between two copies of one folder (as Syncthing or Dropbox would carry it between machines),
 * run one pass at a time so a test decides when the copies meet.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

/** Every file under `dir`, as paths relative to it (temporary files left out). */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !entry.name.endsWith('.tmp')) out.push(relative(dir, path));
    }
  };
  await walk(dir);
  return out.sort();
}

const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const path of await filesUnder(dir)) {
    const bytes = await readFile(join(dir, path)).catch(() => undefined);
    if (bytes) out.set(path, digest(bytes));
  }
  return out;
}

async function copyInto(from: string, to: string, path: string, as = path): Promise<void> {
  const bytes = await readFile(join(from, path)).catch(() => undefined);
  if (!bytes) return;
  const target = join(to, as);
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  const tmp = `${target}.sync.tmp`;
  await writeFile(tmp, bytes, { mode: 0o600 });
  await rename(tmp, target);
}

/**
 * A sync service between folders `a` and `b`, which start as copies of each other: each pass
 * carries what changed on one side since the last pass to the other — new files, new contents,
 * deletions. When both changed one file, `a`'s wins and `b`'s is kept as a Syncthing conflict
 * copy on both sides.
 */
export async function folderSync(a: string, b: string) {
  let last = await snapshot(a);
  let conflicts = 0;
  return {
    async pass(): Promise<void> {
      const [sa, sb] = [await snapshot(a), await snapshot(b)];
      const paths = new Set([...sa.keys(), ...sb.keys(), ...last.keys()]);
      for (const path of paths) {
        const [ha, hb, before] = [sa.get(path), sb.get(path), last.get(path)];
        if (ha === hb) continue;
        if (ha !== before && hb !== before && ha !== undefined && hb !== undefined) {
          const copy = path.replace(
            /\.minca$/,
            `.sync-conflict-20260101-000000-${String(++conflicts).padStart(7, 'A')}.minca`,
          );
          await copyInto(b, a, path, copy);
          await copyInto(b, b, path, copy);
          await copyInto(a, b, path);
          continue;
        }
        // One side changed it (or both, one by deleting it: the change wins).
        const fromA = ha !== before && (hb === before || ha !== undefined);
        const [from, to, gone] = fromA ? [a, b, ha === undefined] : [b, a, hb === undefined];
        if (gone) await rm(join(to, path), { force: true });
        else await copyInto(from, to, path);
      }
      // What both sides now agree on is the new base; a file written during the pass keeps the
      // old base, so the next pass carries it rather than taking it for a deletion.
      const [na, nb] = [await snapshot(a), await snapshot(b)];
      const next = new Map<string, string>();
      for (const path of new Set([...na.keys(), ...nb.keys(), ...last.keys()])) {
        const agreed = na.get(path) === nb.get(path) ? na.get(path) : last.get(path);
        if (agreed !== undefined) next.set(path, agreed);
      }
      last = next;
    },
  };
}
