// A host's subscriptions as its store keeps them: what was written reads back, and an entry
// that is not one (another program's, a damaged file) is `corrupt`, never a subscription. A
// running host sees what another process changes at its next read, and reads them all again
// only then: two connections to one real SQLite file.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCbor, type StorageAdapter } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  HOST_STORE_PATH,
  readSubscription,
  SUBSCRIPTION_PREFIX,
  Subscriptions,
  subscriptionFields,
} from '../src/host/subscriptions.ts';

const account = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';

async function opened() {
  const store = await memoryStores().open(HOST_STORE_PATH);
  return { store, subscriptions: new Subscriptions(store) };
}

describe('subscriptions', () => {
  it('read back as written, with or without an end', async () => {
    const { subscriptions } = await opened();
    const a = await subscriptions.add({ account, spaces: 3, bytes: 1000 }, 5);
    const b = await subscriptions.add({ account, spaces: 1, bytes: 10, expires: 99 }, 6);
    expect(await subscriptions.get(a.id)).toEqual(a);
    expect(await subscriptions.get(b.id)).toEqual(b);
    expect(await subscriptions.forAccount(account, 50)).toHaveLength(2);
    expect(await subscriptions.forAccount(account, 100)).toEqual([a]);
    // The fields a fleet statement carries read back the same way.
    expect(readSubscription(b.id, subscriptionFields(b))).toEqual(b);
  });

  it('are refused with counts that are not whole numbers, or an account that is no DID', async () => {
    const { subscriptions } = await opened();
    for (const [spaces, bytes] of [
      [-1, 10],
      [1.5, 10],
      [1, Number.NaN],
      [1, 2 ** 53],
    ] as const)
      await expect(subscriptions.add({ account, spaces, bytes })).rejects.toMatchObject({
        code: 'invalid_input',
      });
    await expect(
      subscriptions.add({ account: 'alice', spaces: 1, bytes: 1 }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await subscriptions.list()).toEqual([]);
  });

  it.each([
    ['another format', { v: 2, account, spaces: 1, bytes: 1, created: 1 }],
    ['a negative count', { v: 1, account, spaces: -1, bytes: 1, created: 1 }],
    ['no account', { v: 1, spaces: 1, bytes: 1, created: 1 }],
    ['an end that is no time', { v: 1, account, spaces: 1, bytes: 1, created: 1, expires: 'x' }],
    ['not a map', [1, 2, 3]],
  ])('an entry with %s is corrupt', async (_, value) => {
    const { store, subscriptions } = await opened();
    const id = '0123456789abcdef';
    await store.batch([{ key: SUBSCRIPTION_PREFIX + id, value: encodeCbor(value) }]);
    await expect(subscriptions.get(id)).rejects.toMatchObject({ code: 'corrupt' });
    await expect(subscriptions.list()).rejects.toMatchObject({ code: 'corrupt' });
  });

  it('are read again only once another process changed them, and then at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'minca-subs-'));
    const [hostDb, cliDb] = [0, 1].map(() => new Database(join(dir, 'host.sqlite')));
    try {
      // The host's store counts its reads; the CLI's is a connection of its own to the file.
      const reads = { get: 0, list: 0 };
      const real = await sqliteStores(hostDb!).open(HOST_STORE_PATH);
      const counted: StorageAdapter = Object.create(real, {
        get: {
          value: (key: string) => {
            reads.get++;
            return real.get(key);
          },
        },
        list: {
          value: (prefix: string) => {
            reads.list++;
            return real.list(prefix);
          },
        },
      });
      const host = new Subscriptions(counted);
      const cli = new Subscriptions(await sqliteStores(cliDb!).open(HOST_STORE_PATH));
      const other = 'did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH';

      expect(await host.ofAccount(account)).toEqual([]);
      const a = await cli.add({ account, spaces: 1, bytes: 100 });
      const b = await cli.add({ account: other, spaces: 2, bytes: 200 });
      expect(await host.ofAccount(account)).toEqual([a]);
      expect(await host.ofAccount(other)).toEqual([b]);

      // Nothing changed: one read of the change mark, and no subscription read.
      const before = { ...reads };
      expect(await host.ofAccount(account)).toEqual([a]);
      expect(reads).toEqual({ get: before.get + 1, list: before.list });

      expect(await cli.remove(a.id)).toBe(true);
      expect(await host.ofAccount(account)).toEqual([]);
      expect(await host.ofAccount(other)).toEqual([b]);
    } finally {
      hostDb!.close();
      cliDb!.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
