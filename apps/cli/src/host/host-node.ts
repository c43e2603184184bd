/**
 * The node a host or carrier runs: its stores in SQLite (`<data>/host.sqlite`, better-sqlite3),
 * its files' chunks beside it, one file per chunk under `<data>/chunks/` (spec 06 §5), its key in
 * `<data>/host.key` (0600), made on first start. The database and its `-wal` and
 * `-shm` files are 0600 too: they hold what members gave the host to keep. With
 * `<data>/fleet.cert` it is a host of a fleet (spec 06 §6): it proves the fleet's DID, and its
 * subscriptions and the spaces the fleet holds are in the bucket.
 */
import { chmod, mkdir, open, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type BlobStore, createNode, type MincaNode, SigningKey } from '@minca/core';
import { createDirectoryBlobStore } from '@minca/folder';
import { type SqliteStores, sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { CliError, EXIT } from '../cli-error.js';
import { SERVING_CRYPTO } from '../platform.js';
import { writeFileAtomic } from '../secure-files.js';
import { Fleet } from './fleet.js';
import { fleetCertificate } from './fleet-identity.js';
import { SubscriptionPolicy } from './subscription-policy.js';
import { HOST_STORE_PATH, Subscriptions } from './subscriptions.js';

export interface HostNode {
  data: string;
  node: MincaNode;
  stores: SqliteStores;
  subscriptions: Subscriptions;
  /** The fleet's shared state, for a host of a fleet. */
  fleet?: Fleet;
  /** The policy of a host (none on a carrier): what it holds per space, for the fleet. */
  policy?: SubscriptionPolicy;
  close(): Promise<void>;
}

/** Where a host keeps its file chunks, beside `host.sqlite`. */
export const CHUNKS_DIR = 'chunks';

/** A fleet host pulls its spaces from the bucket this often too, to heal a missed relay. */
const FLEET_PULL_MS = 60_000;

export async function hostKey(data: string): Promise<SigningKey> {
  const path = join(data, 'host.key');
  try {
    const secret = new Uint8Array(await readFile(path));
    if (secret.length !== 32) throw new CliError(EXIT.badData, `the host key ${path} is damaged`);
    return SigningKey.fromSecret(secret);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const key = SigningKey.generate();
    await writeFileAtomic(path, Buffer.from(key.exportSecret()), 0o600);
    return key;
  }
}

/** Makes a database made by an older minca, and its -wal and -shm, 0600. */
async function tighten(path: string): Promise<void> {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    await chmod(file, 0o600).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}

/** Opens the SQLite database and store of a host's data folder, without the node. */
export async function openHostStores(
  dataDir: string,
): Promise<{ db: Database.Database; stores: SqliteStores; subscriptions: Subscriptions }> {
  const data = resolve(dataDir);
  await mkdir(data, { recursive: true, mode: 0o700 });
  const path = join(data, 'host.sqlite');
  // SQLite makes its -wal and -shm files with the database file's mode: make that 0600 first.
  await (await open(path, 'a', 0o600)).close();
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (cause) {
    throw new CliError(
      EXIT.badData,
      `cannot open ${join(data, 'host.sqlite')}: ${(cause as Error).message}`,
      { cause },
    );
  }
  const stores = sqliteStores(db);
  await tighten(path);
  const subscriptions = new Subscriptions(await stores.open(HOST_STORE_PATH));
  return { db, stores, subscriptions };
}

/** Opens a host's node over its data folder. */
export async function openHostNode(
  dataDir: string,
  options: {
    /** `subscriptions`: a host (spec 06); `all`: a carrier, holding every space allowed it. */
    holding: 'subscriptions' | 'all';
    mirror?: BlobStore;
    onMirrorError?: (error: unknown) => void;
    /** Told of what the fleet's bucket holds that does not verify, and of failed writes to it. */
    onFleetError?: (error: unknown) => void;
    /**
     * Bytes of chunks kept under `<data>/chunks/` before files the bucket holds leave it (read
     * back from the bucket when asked for); no limit by default.
     */
    chunkBudget?: number;
  },
): Promise<HostNode> {
  const data = resolve(dataDir);
  await mkdir(data, { recursive: true, mode: 0o700 });
  const key = await hostKey(data);
  const certified = await fleetCertificate(data, key);
  if (certified && !options.mirror && options.holding === 'subscriptions')
    throw new CliError(EXIT.usage, 'a host of a fleet needs the fleet’s bucket (--s3-endpoint)');
  const { db, stores, subscriptions } = await openHostStores(data);
  const note = options.onFleetError ?? (() => undefined);
  let fleet: Fleet | undefined;
  if (certified && options.mirror) {
    fleet = new Fleet(
      options.mirror,
      { key, chain: certified.chain, fleet: certified.fleet },
      (k, e) => note(new Error(`${k}: ${(e as Error).message}`)),
    );
    // What the fleet holds and allows is known before the first peer is served.
    await fleet.refresh().catch(note);
  }
  // A host or carrier fetches and keeps every file its spaces name, and mirrors to its bucket.
  const source = fleet
    ? { ofAccount: async (a: string) => fleet.subscriptionsOf(a) }
    : subscriptions;
  const policy =
    options.holding === 'subscriptions'
      ? new SubscriptionPolicy(source, Date.now, fleet, note)
      : undefined;
  const mirror =
    options.mirror && fleet
      ? { store: options.mirror, pullIntervalMs: FLEET_PULL_MS }
      : options.mirror;
  const node = await createNode({
    stores,
    key,
    crypto: SERVING_CRYPTO,
    ...(certified ? { certificates: certified.chain } : {}),
    holding: policy ?? {},
    fetchFiles: 'all',
    fileChunks: {
      // Flushed as written: for a while a chunk may be nowhere else.
      store: createDirectoryBlobStore(join(data, CHUNKS_DIR)),
      ...(options.chunkBudget !== undefined ? { budget: options.chunkBudget } : {}),
    },
    ...(mirror ? { mirrors: [mirror] } : {}),
    ...(options.onMirrorError ? { onMirrorError: options.onMirrorError } : {}),
  });
  await policy?.load(node);
  return {
    data,
    node,
    stores,
    subscriptions,
    ...(fleet ? { fleet } : {}),
    ...(policy ? { policy } : {}),
    async close() {
      await node.close();
      await stores.close?.();
      db.close();
    },
  };
}
