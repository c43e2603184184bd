/**
 * A simulated sync service (Dropbox, Syncthing) between two folders on disk, for tests and
 * the benchmark (`@minca/folder/testing`, Node only). Time is in ticks: each `tick()` scans both folders, schedules a copy (or a
 * delete) of every file that changed on one side since they last agreed, each due a random
 * number of ticks later, and carries out the copies that are due in random order. Like the
 * real ones, it sometimes:
 *
 * - writes a file in place half-way, and the rest a tick or more later;
 * - delivers a file first as a conflict copy (`name.sync-conflict-<date>-<time>-<device>.ext`,
 *   Syncthing's name, or `name (<someone>'s conflicted copy <date>).ext`, Dropbox's) and the
 *   file itself later;
 * - when a file changed on both sides, keeps one and leaves the other as a conflict copy.
 *
 * It makes no conflict copy of a conflict copy, as Syncthing makes none: a copy of a copy of a
 * copy would soon pass the 255 bytes a file name may have. Such a file arrives as it is, and of
 * two changes to it the one that loses is gone.
 *
 * It never looks inside a file. Temp files (`*.tmp`) are left alone, as both services skip
 * files still being written.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** How a simulated service behaves. Chances are in [0, 1]. */
export interface SyncServiceOptions {
  /** Seed of the random choices, so a failing run can be repeated. */
  seed: number;
  /** A copy is due 0 to this many ticks after it is found. Default 3. */
  maxDelayTicks?: number;
  /** Chance a copy is written half first. Default 0.2. */
  halfWrites?: number;
  /** Chance a copy arrives first as a conflict copy. Default 0.1. */
  conflictCopies?: number;
}

type Side = 0 | 1;

interface Job {
  due: number;
  path: string;
  from: Side;
  kind: 'copy' | 'delete' | 'finish';
  /** For `finish`: the bytes being written. */
  bytes?: Uint8Array;
}

const same = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  a === b ||
  (a !== undefined && b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]));

/** xorshift32: small, seeded, good enough to shuffle. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** A conflict copy's name for `name` (`x.minca`), as Syncthing or Dropbox would write it. */
export function conflictCopyName(name: string, style: 'syncthing' | 'dropbox', n = 0): string {
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  const second = String(10 + (n % 50)).padStart(2, '0');
  return style === 'syncthing'
    ? `${stem}.sync-conflict-20261202-1010${second}-ABCDEFG${ext}`
    : `${stem} (Someone's conflicted copy 2026-12-${String(1 + (n % 28)).padStart(2, '0')})${ext}`;
}

/** Whether the file at `path` is a conflict copy, of either style. */
function isConflictCopy(path: string): boolean {
  const name = path.split('/').at(-1)!;
  return name.includes('.sync-conflict-') || name.includes('conflicted copy');
}

interface Seen {
  ino: number;
  size: number;
  mtimeMs: number;
  bytes: Uint8Array;
}

/**
 * Every file under `root`, relative paths with `/`, temp files left out. A file whose inode,
 * size and time are as last seen is not read again: a file renamed into place is a new inode,
 * so one rewritten at the same size within a clock tick of the last scan is still read.
 */
async function scan(root: string, seen: Map<string, Seen>): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  let names: string[];
  try {
    names = (await readdir(root, { recursive: true, withFileTypes: true }))
      .filter((d) => d.isFile() && !d.name.endsWith('.tmp'))
      .map((d) => join(d.parentPath, d.name).slice(root.length + 1));
  } catch {
    return out;
  }
  const present = new Set<string>();
  for (const name of names) {
    const path = name.split('\\').join('/');
    present.add(path);
    try {
      const info = await stat(join(root, name));
      const known = seen.get(path);
      if (
        known &&
        known.ino === info.ino &&
        known.size === info.size &&
        known.mtimeMs === info.mtimeMs
      ) {
        out.set(path, known.bytes);
        continue;
      }
      const bytes = new Uint8Array(await readFile(join(root, name)));
      seen.set(path, { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs, bytes });
      out.set(path, bytes);
    } catch {
      // Gone between the listing and the read: found again next tick, or not.
    }
  }
  for (const path of seen.keys()) if (!present.has(path)) seen.delete(path);
  return out;
}

export class SimulatedSyncService {
  readonly #roots: readonly [string, string];
  readonly #seen = [new Map<string, Seen>(), new Map<string, Seen>()] as const;
  readonly #random: () => number;
  readonly #maxDelay: number;
  readonly #halfWrites: number;
  readonly #conflictCopies: number;
  /** What both sides last agreed a path held (absent: nothing). */
  readonly #base = new Map<string, Uint8Array>();
  #jobs: Job[] = [];
  #tick = 0;
  #names = 0;
  /** What it did, for tests to check every behaviour happened. */
  readonly counts = { copies: 0, deletes: 0, halfWrites: 0, conflictCopies: 0, conflicts: 0 };

  constructor(a: string, b: string, options: SyncServiceOptions) {
    this.#roots = [a, b];
    this.#random = random(options.seed);
    this.#maxDelay = options.maxDelayTicks ?? 3;
    this.#halfWrites = options.halfWrites ?? 0.2;
    this.#conflictCopies = options.conflictCopies ?? 0.1;
  }

  #chance(p: number): boolean {
    return this.#random() < p;
  }

  #due(): number {
    return this.#tick + Math.floor(this.#random() * (this.#maxDelay + 1));
  }

  #busy(path: string): boolean {
    return this.#jobs.some((job) => job.path === path);
  }

  /** One tick: find changes, then carry out what is due, in random order. */
  async tick(): Promise<void> {
    this.#tick++;
    const [a, b] = await Promise.all(this.#roots.map((root, i) => scan(root, this.#seen[i]!)));
    for (const path of new Set([...a!.keys(), ...b!.keys(), ...this.#base.keys()])) {
      const here = [a!.get(path), b!.get(path)] as const;
      const base = this.#base.get(path);
      if (same(here[0], here[1])) {
        if (here[0] === undefined) this.#base.delete(path);
        else this.#base.set(path, here[0]);
        continue;
      }
      if (this.#busy(path)) continue;
      const changed = [!same(here[0], base), !same(here[1], base)];
      let from: Side;
      if (changed[0] && changed[1]) {
        // Both changed it: a change beats a delete; of two changes, one wins at random and
        // the other is kept beside it as a conflict copy, on both sides.
        if (here[0] === undefined) from = 1;
        else if (here[1] === undefined) from = 0;
        else {
          from = this.#chance(0.5) ? 0 : 1;
          const loser = here[from === 0 ? 1 : 0]!;
          if (!isConflictCopy(path)) {
            const copy = join(dirname(path), this.#conflictName(path));
            await Promise.all(this.#roots.map((root) => this.#write(root, copy, loser)));
          }
          this.counts.conflicts++;
        }
      } else {
        from = changed[0] ? 0 : 1;
      }
      const kind = here[from] === undefined ? 'delete' : 'copy';
      this.#jobs.push({ due: this.#due(), path, from, kind });
    }
    await this.#runDue(false);
  }

  /** Carries out every job left, whatever its due tick, and keeps no half-written file. */
  async flush(): Promise<void> {
    for (let round = 0; round < 4 && this.#jobs.length > 0; round++) await this.#runDue(true);
  }

  /** True when no copy is pending. */
  get idle(): boolean {
    return this.#jobs.length === 0;
  }

  #conflictName(path: string): string {
    const name = path.split('/').at(-1)!;
    return conflictCopyName(name, this.#chance(0.5) ? 'syncthing' : 'dropbox', this.#names++);
  }

  async #runDue(all: boolean): Promise<void> {
    const due = this.#jobs.filter((job) => all || job.due <= this.#tick);
    this.#jobs = this.#jobs.filter((job) => !due.includes(job));
    // Random order: a service carries files one by one, in no order a reader can count on.
    for (let i = due.length - 1; i > 0; i--) {
      const j = Math.floor(this.#random() * (i + 1));
      [due[i], due[j]] = [due[j]!, due[i]!];
    }
    for (const job of due) await this.#run(job, all);
  }

  async #run(job: Job, finishNow: boolean): Promise<void> {
    const source = this.#roots[job.from];
    const target = this.#roots[job.from === 0 ? 1 : 0];
    if (job.kind === 'delete') {
      await rm(join(target, job.path), { force: true });
      this.#base.delete(job.path);
      this.counts.deletes++;
      return;
    }
    let bytes = job.bytes;
    if (job.kind === 'copy') {
      try {
        bytes = new Uint8Array(await readFile(join(source, job.path)));
      } catch {
        return; // Gone meanwhile: the next tick sees what it is now.
      }
      if (!finishNow && !isConflictCopy(job.path) && this.#chance(this.#conflictCopies)) {
        // First as a conflict copy; the file itself comes later.
        const copy = join(dirname(job.path), this.#conflictName(job.path));
        await this.#write(target, copy, bytes);
        this.counts.conflictCopies++;
        this.#jobs.push({
          due: this.#due() + 1,
          path: job.path,
          from: job.from,
          kind: 'finish',
          bytes,
        });
        return;
      }
      if (!finishNow && bytes.length > 1 && this.#chance(this.#halfWrites)) {
        // In place, half-way: a reader now sees a torn file.
        try {
          await mkdir(dirname(join(target, job.path)), { recursive: true, mode: 0o700 });
          await writeFile(join(target, job.path), bytes.subarray(0, bytes.length >> 1), {
            mode: 0o600,
          });
        } catch {
          // Its folder went meanwhile; the whole file comes all the same.
        }
        this.counts.halfWrites++;
        this.#jobs.push({
          due: this.#due() + 1,
          path: job.path,
          from: job.from,
          kind: 'finish',
          bytes,
        });
        return;
      }
    }
    await this.#write(target, job.path, bytes!);
    this.#base.set(job.path, bytes!);
    this.counts.copies++;
  }

  /** Writes a whole file as the services do: to a temp name, then renamed into place. */
  async #write(root: string, path: string, bytes: Uint8Array): Promise<void> {
    const at = join(root, path);
    // A store may remove an emptied folder meanwhile: make it again and retry.
    for (let attempt = 1; ; attempt++) {
      const temp = `${at}.sync-${this.#names++}.tmp`;
      try {
        await mkdir(dirname(at), { recursive: true, mode: 0o700 });
        await writeFile(temp, bytes, { mode: 0o600 });
        await rename(temp, at);
        return;
      } catch (error) {
        await rm(temp, { force: true });
        if ((error as { code?: string }).code !== 'ENOENT' || attempt >= 5) throw error;
      }
    }
  }
}
