/**
 * This app's node (spec 05 §18.3): its stores are IndexedDB `minca-app:<account DID>`, and its
 * own writer key, the root's certificate of it and the spaces the home handed over are kept
 * there too, in the store `app` (the database `minca-app:<account DID>:app`), so the key is
 * never only in memory. Which account this browser's copy of the app is connected to is
 * remembered in localStorage (a DID, not a secret).
 */
import {
  createMessagePortTransport,
  createNode,
  type MessagePortLike,
  type MincaNode,
  SigningKey,
  type StorageAdapter,
  type StoreFactory,
} from '@minca/core';
import { indexedDBStores } from '@minca/idb';
import type { Connection } from './home-link.js';

const ACCOUNT = 'minca-companion:account';
const APP_STORE = 'app';
const utf8 = new TextEncoder();
const text = new TextDecoder();

export interface AppSpace {
  id: string;
  name: string;
}

export interface AppNode {
  account: string;
  node: MincaNode;
  /** The spaces the person let this app use, as the home named them. */
  spaces: AppSpace[];
  close(): Promise<void>;
}

export const storesPrefix = (account: string) => `minca-app:${account}`;

async function read(store: StorageAdapter, key: string) {
  return store.get(key);
}

async function open(account: string, stores: StoreFactory): Promise<AppNode | undefined> {
  const store = await stores.open(APP_STORE);
  const [secret, certificate, spaces] = await Promise.all([
    read(store, 'writer-key'),
    read(store, 'certificate'),
    read(store, 'spaces'),
  ]);
  await store.close?.();
  if (!secret || !certificate || !spaces) return undefined;
  const node = await createNode({
    stores,
    key: SigningKey.fromSecret(secret),
    certificates: [certificate],
  });
  return {
    account,
    node,
    spaces: JSON.parse(text.decode(spaces)) as AppSpace[],
    close: async () => {
      await node.close();
      await stores.close?.();
    },
  };
}

/** The app as this browser last connected it, or `undefined` when it isn't. */
export async function openRemembered(): Promise<AppNode | undefined> {
  const account = localStorage.getItem(ACCOUNT);
  if (!account) return undefined;
  return open(account, indexedDBStores(storesPrefix(account)));
}

/**
 * Keeps what the home handed over, joins its spaces, and syncs them once with the home over
 * its channel; resolves when this node is level with the home in every one (or `waitMs` passed).
 */
export async function keepConnection(connection: Connection, waitMs = 30_000): Promise<AppNode> {
  const { account, key, certificate } = connection;
  const stores = indexedDBStores(storesPrefix(account));
  const store = await stores.open(APP_STORE);
  const spaces = connection.spaces.map(({ ticket, name }) => ({ id: ticket.id, name }));
  // The key first, before it signs anything.
  await store.batch([
    { key: 'writer-key', value: key.exportSecret() },
    { key: 'certificate', value: certificate },
    { key: 'spaces', value: utf8.encode(JSON.stringify(spaces)) },
  ]);
  await store.close?.();
  localStorage.setItem(ACCOUNT, account);
  const app = (await open(account, stores))!;
  for (const { ticket } of connection.spaces) await app.node.spaces.join(ticket);
  app.node.connect(createMessagePortTransport(connection.port as unknown as MessagePortLike));
  const until = Date.now() + waitMs;
  const level = async () => {
    for (const { id } of spaces) {
      const status = await app.node.spaces.status(id);
      if (!status.peers.some((p) => p.did === account && p.level)) return false;
    }
    return true;
  };
  while (!(await level()) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return app;
}
