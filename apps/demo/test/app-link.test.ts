/**
 * The home's link to a connected app shares only the spaces the person approved: nothing the
 * home sends names another space of the account, while the approved one syncs in full. Real
 * nodes in Node, over a memory transport; without the link, the other space's id does reach
 * an app certified for every space (so the check can fail).
 */
import {
  createMemoryTransportPair,
  createNode,
  type MincaNode,
  SigningKey,
  type Transport,
} from '@minca/core';
import { TestAccount } from '@minca/core/testing';
import { memoryStores } from '@minca/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { approvedSpacesOnly } from '../src/worker/app-link.ts';

const nodes: MincaNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.close();
});

async function until(ok: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`not reached: ${what}`);
}

/** The account home: a writer key certified by a device of `root`. */
async function home(root: SigningKey) {
  const node = await createNode({
    stores: memoryStores(),
    ...(await new TestAccount(root).node()),
  });
  nodes.push(node);
  return node;
}

/** The app: its own key, certified by the root for `spaces` only, or for every space. */
async function app(root: SigningKey, spaces?: string[]) {
  const keys = await new TestAccount(root).node({
    ...(spaces ? { spaces } : {}),
    label: 'http://127.0.0.1:5174',
  });
  const node = await createNode({ stores: memoryStores(), ...keys });
  nodes.push(node);
  return node;
}

/** Connects the two; gives every message the home sent, as text, to look for ids in. */
function link(homeNode: MincaNode, appNode: MincaNode, wrap: (t: Transport) => Transport) {
  const [a, b] = createMemoryTransportPair();
  const heard: string[] = [];
  // What goes on the wire to the app: after the link, if there is one.
  const wire: Transport = {
    get closed() {
      return a.closed;
    },
    onMessage: undefined,
    onClose: undefined,
    send: (m) => {
      heard.push(Buffer.from(m).toString('latin1'));
      a.send(m);
    },
    close: (r) => a.close(r),
  };
  a.onMessage = (m) => wire.onMessage?.(m);
  a.onClose = (r) => wire.onClose?.(r);
  homeNode.connect(wrap(wire));
  appNode.connect(b);
  return heard;
}

describe('the link from the account home to a connected app', () => {
  // The link filters what the home sends; the app's certificate, when limited to some spaces,
  // has the home's node name only those too. Each alone keeps the other space unnamed.
  const cases = [
    {
      approvedOnly: true,
      limited: false,
      name: 'names only the approved space to the app, and syncs it whole',
    },
    {
      approvedOnly: false,
      limited: false,
      name: 'without it, an app certified for every space hears of the account’s other spaces',
    },
    {
      approvedOnly: false,
      limited: true,
      name: 'without it, an app certified for one space hears of no other',
    },
  ];
  for (const { approvedOnly, limited, name } of cases) {
    it(name, async () => {
      const root = SigningKey.generate();
      const h = await home(root);
      const friends = await h.spaces.create();
      const family = await h.spaces.create();
      await h.records.put(friends.id, 'app.post', { text: 'for the app' });
      await h.records.put(family.id, 'app.post', { text: 'not for the app' });
      const a = await app(root, limited ? [friends.id] : undefined);
      await a.spaces.join(await h.spaces.share(friends.id, root.did));
      const heard = link(h, a, (t) =>
        approvedOnly ? approvedSpacesOnly(t, new Set([friends.id])) : t,
      );
      await until(async () => {
        const status = await a.spaces.status(friends.id);
        return status.peers.some((p) => p.did === root.did && p.level);
      }, 'the app level with the home');
      const texts = (await a.records.list<{ text: string }>(friends.id, 'app.post')).map(
        (r) => r.body.text,
      );
      expect(texts).toEqual(['for the app']);
      expect(heard.some((m) => m.includes(friends.id))).toBe(true);
      expect(heard.some((m) => m.includes(family.id))).toBe(!approvedOnly && !limited);
    });
  }
});
