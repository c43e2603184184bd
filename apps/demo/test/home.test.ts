/**
 * The account home and a connected app (spec 05 §18), in Debian's Chromium: the demo keeps
 * Ada's root and device keys where no script can read them and signs with a writer key of its
 * own; Notes (apps/companion), on another origin, connects with her approval, reads and
 * writes the one space she chose and no other, even with its own key in hand; and "Forget
 * this browser's copy" deletes her `minca:` databases and keys, and nothing else.
 */
import { join } from 'node:path';
import {
  createNode,
  createVersion,
  decodeCertificate,
  decodeStrict,
  decodeVersion,
  keepConnected,
  type MincaNode,
  randomId,
  SigningKey,
  Store,
  type WebSocketLike,
} from '@minca/core';
import { memoryStores } from '@minca/memory';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { seriousViolations } from './axe.ts';
import {
  ARTIFACTS,
  buildApp,
  buildCompanion,
  buildWarnings,
  launch,
  type Stack,
  startStack,
} from './browser.ts';
import { createAccount, inChromium, WAIT } from './steps.ts';

const texts = (page: Page) => page.locator('#feed .text').allTextContents();
const authors = (page: Page) => page.locator('#feed .author').allTextContents();
const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(ARTIFACTS, 'home', `${name}.png`) });

async function accessible(page: Page) {
  expect(await seriousViolations(page)).toEqual([]);
}

/** An entry of an IndexedDB object store, read in the page: CryptoKeys described, bytes as arrays. */
function idbGet(page: Page, db: string, store: string, key: string) {
  return page.evaluate(
    async ([db, store, key]) => {
      const open = indexedDB.open(db);
      const conn = await new Promise<IDBDatabase>((resolve, reject) => {
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      try {
        if (!conn.objectStoreNames.contains(store)) return undefined;
        const get = conn.transaction(store).objectStore(store).get(key);
        const value = await new Promise<unknown>((resolve) => {
          get.onsuccess = () => resolve(get.result);
        });
        const plain = (v: unknown): unknown => {
          if (v instanceof CryptoKey)
            return { cryptoKey: v.type, extractable: v.extractable, algorithm: v.algorithm.name };
          if (v instanceof ArrayBuffer) return [...new Uint8Array(v)];
          if (v instanceof Uint8Array) return [...v];
          if (v && typeof v === 'object')
            return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
          return v;
        };
        return plain(value) as Record<string, unknown> | number[] | undefined;
      } finally {
        conn.close();
      }
    },
    [db, store, key] as const,
  );
}

/** Every version a store holds in the page's IndexedDB, decoded. */
async function versionsIn(page: Page, db: string) {
  const all = await page.evaluate(async (db) => {
    const open = indexedDB.open(db);
    const conn = await new Promise<IDBDatabase>((r) => (open.onsuccess = () => r(open.result)));
    const get = conn.transaction('versions').objectStore('versions').getAll();
    const values = await new Promise<ArrayBuffer[]>((r) => (get.onsuccess = () => r(get.result)));
    conn.close();
    return values.map((v) => [...new Uint8Array(v)]);
  }, db);
  return all.map((v) => decodeVersion(new Uint8Array(v)));
}

const databases = (page: Page) =>
  page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name ?? '').sort());

const bytes = (value: unknown) => new Uint8Array(value as number[]);

inChromium('the account home and a connected app, in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let context: BrowserContext;
  let home: Page;
  let notes: Page;
  let account: string;
  let did: string;
  let friends: string;
  let family: string;
  const cleanup: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    const [app, companion] = [await buildApp(), await buildCompanion()];
    stack = await startStack(app, companion);
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1100, height: 820 } });
    context.on('page', (page) => {
      page.on('console', (m) => m.type() === 'error' && console.error(`page: ${m.text()}`));
      page.on('pageerror', (e) => console.error(`page: ${e.message}`));
    });
    home = await context.newPage();
  }, 240_000);

  afterAll(async () => {
    for (const fn of cleanup.reverse()) await fn();
    await context?.close();
    await browser?.close();
    await stack?.close();
  });

  it('builds both apps without a warning', () => {
    expect(buildWarnings).toEqual([]);
  });

  it("keeps Ada's root and device keys unreadable, and signs with a writer key of its own", async () => {
    await home.goto(stack.app.url);
    await createAccount(home, 'Ada');
    await home.getByRole('heading', { name: 'Your spaces' }).waitFor(WAIT);
    account = new URLSearchParams(new URL(home.url()).hash.slice(1)).get('a')!;
    for (const [name, text] of [
      ['Family', 'Family only'],
      ['Friends', 'Hello from the home'],
    ] as const) {
      await home.goto(`${stack.app.url}#a=${account}`);
      await home.getByLabel('Space name').fill(name);
      await home.getByRole('button', { name: 'Create space' }).click();
      await expect.poll(() => home.locator('#space-title').textContent(), WAIT).toBe(name);
      await home.getByLabel('Write a post').fill(text);
      await home.getByRole('button', { name: 'Post', exact: true }).click();
      await expect.poll(() => texts(home), WAIT).toContain(text);
      await expect
        .poll(() => home.locator('#sync-state').textContent(), WAIT)
        .toBe('Up to date with the host');
      const id = new URLSearchParams(new URL(home.url()).hash.slice(1)).get('s')!;
      if (name === 'Family') family = id;
      else friends = id;
    }

    const keys = (await idbGet(home, 'minca-device-keys', 'keys', account)) as {
      v: number;
      root: { did: string; key: unknown };
      device: { did: string; key: unknown; certificate: number[] };
      writer: { secret: number[]; certificate: number[] };
    };
    did = keys.root.did;
    const webKey = { cryptoKey: 'private', extractable: false, algorithm: 'Ed25519' };
    expect(keys.v).toBe(2);
    expect(keys.root.key).toEqual(webKey);
    expect(keys.device.key).toEqual(webKey);
    // Not even the page itself can read the root out.
    const exported = await home.evaluate(async (id) => {
      const open = indexedDB.open('minca-device-keys');
      const db = await new Promise<IDBDatabase>((r) => (open.onsuccess = () => r(open.result)));
      const get = db.transaction('keys').objectStore('keys').get(id);
      const entry = await new Promise<{ root: { key: CryptoKey } }>(
        (r) => (get.onsuccess = () => r(get.result)),
      );
      db.close();
      return crypto.subtle.exportKey('jwk', entry.root.key).then(
        () => 'exported',
        (e: Error) => e.name,
      );
    }, account);
    expect(exported).toBe('InvalidAccessError');
    const device = decodeCertificate(bytes(keys.device.certificate));
    const writer = decodeCertificate(bytes(keys.writer.certificate));
    expect(device).toMatchObject({ kind: 'device', issuer: did, subject: keys.device.did });
    expect(writer).toMatchObject({ kind: 'writer', issuer: keys.device.did, account: did });
    expect(SigningKey.fromSecret(bytes(keys.writer.secret)).did).toBe(writer.subject);
    expect(writer.subject).not.toBe(did);
  });

  it('Notes, on another origin, asks the home; Ada allows it for Friends only', async () => {
    expect(new URL(stack.companion!.url).origin).not.toBe(new URL(stack.app.url).origin);
    notes = await context.newPage();
    await notes.goto(stack.companion!.url);
    await notes.getByRole('heading', { name: 'Notes for your spaces' }).waitFor(WAIT);
    await accessible(notes);
    const opened = notes.waitForEvent('popup');
    await notes.getByRole('button', { name: 'Connect your minca account' }).click();
    const popup = await opened;
    await popup.getByRole('heading', { name: 'Connect Notes to your account?' }).waitFor(WAIT);
    // The home names the app by its origin, as the browser told it.
    expect(await popup.locator('.app-request').textContent()).toContain(
      new URL(stack.companion!.url).origin,
    );
    await popup.getByLabel('Friends').waitFor(WAIT);
    expect(await popup.getByRole('button', { name: 'Allow', exact: true }).isDisabled()).toBe(true);
    await popup.getByLabel('Friends').check();
    await accessible(popup);
    await shot(popup, 'connect-approve');
    const closed = popup.waitForEvent('close', WAIT);
    await popup.getByRole('button', { name: 'Allow', exact: true }).click();
    await closed;

    await notes.locator('main[data-rendered="true"]').waitFor(WAIT);
    expect(await notes.locator('#spaces button').allTextContents()).toEqual(['Friends']);
    await expect.poll(() => texts(notes), WAIT).toEqual(['Hello from the home']);
    expect(await authors(notes)).toEqual(['Ada']);
    await accessible(notes);
    await shot(notes, 'notes-friends');
  });

  it('reads and writes the approved space, through the host too, and holds no other', async () => {
    await notes.getByLabel('Write a note').fill('Written in Notes');
    await notes.getByRole('button', { name: 'Post' }).click();
    await expect.poll(() => texts(notes), WAIT).toContain('Written in Notes');
    await home.goto(`${stack.app.url}#a=${account}&s=${friends}`);
    await expect.poll(() => texts(home), WAIT).toContain('Written in Notes');
    // Notes writes for Ada's account: the home shows the post as hers.
    expect(await home.locator('#feed article .author').first().textContent()).toBe('Ada');

    // A reload ends the channel from the home: now only the host carries posts, both ways.
    await notes.reload();
    await notes.locator('main[data-rendered="true"]').waitFor(WAIT);
    await expect
      .poll(() => notes.locator('#state').textContent(), WAIT)
      .toBe('Up to date with the host');
    await notes.getByLabel('Write a note').fill('After a reload');
    await notes.getByRole('button', { name: 'Post' }).click();
    await expect.poll(() => texts(home), WAIT).toContain('After a reload');
    await home.getByLabel('Write a post').fill('Seen in Notes?');
    await home.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => texts(notes), WAIT).toContain('Seen in Notes?');

    // Its stores and its key are under minca-app:<account DID>, and none is Family's.
    const names = await databases(notes);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.startsWith(`minca-app:${did}:`))).toBe(true);
    expect(names).toContain(`minca-app:${did}:app`);
    expect(names).toContain(`minca-app:${did}:spaces:${friends}`);
    expect(names.some((n) => n.includes(family))).toBe(false);
    expect(await notes.locator('main').textContent()).not.toContain('Family');
  });

  it('can’t write in Family: its put is refused, and a version it forges there does not stand', async () => {
    // What Notes holds: its own key and certificate, in its stores (anyone running as Notes has them).
    const kv = (key: string) => idbGet(notes, `minca-app:${did}:app`, 'kv', key);
    const appKey = SigningKey.fromSecret(bytes(await kv('writer-key')));
    const certificate = bytes(await kv('certificate'));
    expect(decodeCertificate(certificate)).toMatchObject({ spaces: [friends], account: did });

    // Say Family's invite code reached Notes too (Ada made it for someone; here, the whole code).
    await home.goto(`${stack.app.url}#a=${account}&s=${family}`);
    await expect.poll(() => home.locator('#space-title').textContent(), WAIT).toBe('Family');
    await home.getByRole('button', { name: 'Invite someone' }).click();
    await expect
      .poll(() => home.locator('#invite-code').inputValue(), WAIT)
      .toMatch(/^minca-invite:/);
    const code = await home.locator('#invite-code').inputValue();
    await home.getByRole('button', { name: 'Done' }).click();

    const stores = memoryStores();
    let forger: MincaNode = await createNode({ stores, key: appKey, certificates: [certificate] });
    await forger.spaces.join(code).catch(() => undefined);
    expect(await forger.spaces.list()).toContain(family);
    await expect(
      forger.records.put(family, 'app.post', { text: 'Notes was here' }),
    ).rejects.toMatchObject({ code: 'not_authorized' });

    // So it builds versions by hand, sealed under Family's key: one signed with its own key,
    // and beside it one with Ada's home's writer key, which may write there, to carry the same way.
    const invite = decodeStrict(Buffer.from(code.slice('minca-invite:'.length), 'base64url')) as {
      k: Uint8Array;
    };
    const keys = (await idbGet(home, 'minca-device-keys', 'keys', account)) as {
      writer: { secret: number[] };
    };
    const homeWriter = SigningKey.fromSecret(bytes(keys.writer.secret));
    const draft = (text: string) => ({
      space: family,
      collection: 'app.post',
      record: randomId(),
      supersedes: [],
      timestamp: Date.now(),
      files: [],
      body: { text },
    });
    const forged = await createVersion(draft('Forged by Notes'), invite.k, appKey);
    const carried = await createVersion(draft('Carried for Ada'), invite.k, homeWriter);
    await forger.close();
    // Notes's own key is named only Friends by every peer (its certificate says so), so a
    // member of Family carries them: whoever else got the code.
    const relayStores = memoryStores();
    const relay = await createNode({ stores: relayStores });
    await relay.spaces.join(code);
    await relay.close();
    const store = await Store.open(await relayStores.open(`spaces/${family}`));
    await store.commit({ versions: [forged, carried] });
    await store.close();
    forger = await createNode({ stores: relayStores });
    const link = keepConnected(
      () => new WebSocket(stack.host.url) as unknown as WebSocketLike,
      (t) => void forger.connect(t),
    );
    cleanup.push(async () => {
      link.close();
      await forger.close();
    });
    // The host took both in (it holds versions without judging them): the carrier is level with it.
    await expect
      .poll(async () => (await forger.spaces.status(family)).peers.some((p) => p.level), WAIT)
      .toBe(true);

    // Both reach the home together: Ada's writer's stands, Notes's doesn't.
    await expect.poll(() => texts(home), WAIT).toContain('Carried for Ada');
    expect(await texts(home)).not.toContain('Forged by Notes');
    expect(await texts(home)).toContain('Family only');
  });

  it('Ada disconnects Notes: what it writes after shows to nobody, and it can’t read on', async () => {
    await home.goto(`${stack.app.url}#a=${account}`);
    const apps = home.locator('#apps');
    await apps.waitFor(WAIT);
    expect(await apps.textContent()).toContain(
      `Notes · ${new URL(stack.companion!.url).origin} · Friends`,
    );
    await home.getByRole('button', { name: /^Disconnect Notes/ }).click();
    const dialog = home.locator('#confirm');
    await dialog.waitFor(WAIT);
    await accessible(home);
    await dialog.getByRole('button', { name: 'Disconnect Notes' }).click();
    await expect
      .poll(() => home.locator('#apps-status').textContent(), WAIT)
      .toBe('Notes is disconnected.');
    const disconnected = Date.now();

    // Notes writes on: refused by its own node once it knows, and standing nowhere either way.
    await notes.getByLabel('Write a note').fill('After disconnecting');
    await notes.getByRole('button', { name: 'Post' }).click();
    await home.goto(`${stack.app.url}#a=${account}&s=${friends}`);
    await home.getByLabel('Write a post').fill('After Notes left');
    await home.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => texts(home), WAIT).toContain('After Notes left');
    // Notes gets Ada's new post, sealed under a key it never got: it holds it, and can't show it.
    const homeWriter = decodeCertificate(
      bytes(
        (
          (await idbGet(home, 'minca-device-keys', 'keys', account)) as {
            writer: { certificate: number[] };
          }
        ).writer.certificate,
      ),
    ).subject;
    await expect
      .poll(async () => {
        const held = await versionsIn(notes, `minca-app:${did}:spaces:${friends}`);
        return held.some(
          (v) =>
            v.collection === 'app.post' && v.author === homeWriter && v.timestamp > disconnected,
        );
      }, WAIT)
      .toBe(true);
    await notes.reload();
    await notes.locator('main[data-rendered="true"]').waitFor(WAIT);
    expect(await texts(notes)).toContain('Seen in Notes?');
    expect(await texts(notes)).not.toContain('After Notes left');
    expect(await texts(home)).not.toContain('After disconnecting');
    // What it wrote while connected stays.
    expect(await texts(home)).toContain('Written in Notes');
  });

  it("forgets this browser's copy: the account's minca: databases and keys go, minca-pod: stays", async () => {
    // A data folder's own stores for this account, which forgetting must leave alone.
    const pod = `minca-pod:accounts:${account}:stores:registry`;
    await home.evaluate(
      (name) =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open(name, 1);
          open.onsuccess = () => {
            open.result.close();
            resolve();
          };
          open.onerror = () => reject(open.error);
        }),
      pod,
    );
    const mine = (names: string[]) =>
      names.filter((n) => n.startsWith(`minca:accounts:${account}:`));
    const before = mine(await databases(home));
    expect(before).toContain(`minca:accounts:${account}:stores:registry`);
    expect(before).toContain(`minca:accounts:${account}:stores:spaces:${friends}`);

    await home.goto(`${stack.app.url}#a=${account}`);
    await home.getByRole('button', { name: 'Forget this browser’s copy…' }).click();
    const dialog = home.locator('#confirm');
    await dialog.waitFor(WAIT);
    expect(await dialog.getByRole('heading').textContent()).toBe('Forget Ada in this browser?');
    await accessible(home);
    await shot(home, 'forget-confirm');
    await dialog.getByRole('button', { name: 'Forget this browser’s copy' }).click();
    await home.getByRole('heading', { name: 'Welcome to minca' }).waitFor(WAIT);

    const after = await databases(home);
    expect(mine(after)).toEqual([]);
    expect(after).toContain(pod);
    expect(await idbGet(home, 'minca-device-keys', 'keys', account)).toBeUndefined();
    expect(await idbGet(home, 'minca-accounts', 'accounts', account)).toBeUndefined();
    // Notes, on its own origin, keeps its copy of Friends.
    await notes.reload();
    await expect.poll(() => texts(notes), WAIT).toContain('Written in Notes');
  });

  it('an account made before keys had roles keeps its DID: its key becomes the root', async () => {
    const old = SigningKey.generate();
    const page = await (await browser.newContext()).newPage();
    await page.goto(stack.app.url);
    await page.getByRole('heading', { name: 'Welcome to minca' }).waitFor(WAIT);
    await page.evaluate(
      async ([secret, did]) => {
        const put = (db: string, store: string, value: unknown, key: string) =>
          new Promise<void>((resolve, reject) => {
            const open = indexedDB.open(db, 1);
            open.onupgradeneeded = () => open.result.createObjectStore(store);
            open.onsuccess = () => {
              const tx = open.result.transaction(store, 'readwrite');
              tx.objectStore(store).put(value, key);
              tx.oncomplete = () => {
                open.result.close();
                resolve();
              };
              tx.onerror = () => reject(tx.error);
            };
          });
        await put('minca-device-keys', 'keys', new Uint8Array(secret), 'old123');
        await put(
          'minca-accounts',
          'accounts',
          { id: 'old123', did, name: 'Old', created: 1 },
          'old123',
        );
      },
      [[...old.exportSecret()], old.did] as const,
    );
    await page.goto(`${stack.app.url}#a=old123`);
    await page.getByRole('heading', { name: 'Your spaces' }).waitFor(WAIT);
    await page.getByLabel('Space name').fill('Kept');
    await page.getByRole('button', { name: 'Create space' }).click();
    await expect.poll(() => page.locator('#space-title').textContent(), WAIT).toBe('Kept');
    const keys = (await idbGet(page, 'minca-device-keys', 'keys', 'old123')) as {
      v: number;
      root: { did: string; key: unknown };
    };
    expect(keys.v).toBe(2);
    expect(keys.root).toEqual({
      did: old.did,
      key: { cryptoKey: 'private', extractable: false, algorithm: 'Ed25519' },
    });
    await page.context().close();
  });
});
