/**
 * A host's subscriptions (spec 06): in the host's own store, path `host`, one entry per
 * subscription under `subscription:<id>`, deterministic CBOR. Every add and removal also writes
 * a new random change mark (`subscription-change`); a host's decisions read only the mark, and
 * read every subscription again when it differs from the one they were last read under. So
 * `minca host subscription …` run beside a live host is seen at its next decision, and a
 * decision costs one read however many accounts the host serves.
 */
import { randomBytes } from 'node:crypto';
import { decodeStrict, encodeCbor, MincaError, type StorageAdapter } from '@minca/core';
import { GroupedMap } from './grouped-map.js';

export const HOST_STORE_PATH = 'host';
export const SUBSCRIPTION_PREFIX = 'subscription:';
/** Rewritten, with random bytes, by every change to the subscriptions. */
export const SUBSCRIPTION_CHANGE_KEY = 'subscription-change';

/** What a subscription allows one account. */
export interface Subscription {
  /** 16 hex characters. */
  id: string;
  /** The account's DID: spaces it owns are held under this subscription. */
  account: string;
  /** Most spaces held at once. */
  spaces: number;
  /** Most bytes held over all its spaces (what the host's stores take for them). */
  bytes: number;
  /** Past this (ms since 1970) the subscription holds nothing new; absent: never. */
  expires?: number;
  created: number;
}

const SUBSCRIPTION_ID = /^[0-9a-f]{16}$/;

/** Whether `v` is a whole number a count or a time may be: safe, and not below 0. */
export const whole = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * A subscription's fields as they are written, in this host's store (with `v: 1`) and in a
 * fleet's statements (spec 06 §2.1): everything but its id, which names where it is kept.
 */
export function subscriptionFields(s: Subscription): Record<string, unknown> {
  return {
    account: s.account,
    spaces: s.spaces,
    bytes: s.bytes,
    ...(s.expires === undefined ? {} : { expires: s.expires }),
    created: s.created,
  };
}

/** Subscription `id` from the fields {@link subscriptionFields} wrote, or `undefined` if they aren't. */
export function readSubscription(id: string, m: Record<string, unknown>): Subscription | undefined {
  if (typeof m.account !== 'string' || !whole(m.spaces) || !whole(m.bytes) || !whole(m.created))
    return undefined;
  if (m.expires !== undefined && !whole(m.expires)) return undefined;
  return {
    id,
    account: m.account,
    spaces: m.spaces as number,
    bytes: m.bytes as number,
    ...(m.expires === undefined ? {} : { expires: m.expires as number }),
    created: m.created as number,
  };
}

function encode(s: Subscription): Uint8Array {
  return encodeCbor({ v: 1, ...subscriptionFields(s) });
}

function decode(id: string, bytes: Uint8Array): Subscription {
  const m = decodeStrict(bytes, { maxBytes: 4096, maxDepth: 1 }) as Record<string, unknown>;
  const read = typeof m === 'object' && m !== null && m.v === 1 && readSubscription(id, m);
  if (!read) throw new MincaError('corrupt', `subscription ${id} does not read as one`);
  return read;
}

export class Subscriptions {
  /** Every subscription by account, as read under change mark `mark`. */
  #byAccount: { mark: string; subscriptions: GroupedMap<Subscription> } | undefined;

  constructor(private readonly store: StorageAdapter) {}

  /** A new change mark, written with each change (random: two writers never write the same). */
  #changed() {
    return { key: SUBSCRIPTION_CHANGE_KEY, value: new Uint8Array(randomBytes(8)) };
  }

  async add(fields: Omit<Subscription, 'id' | 'created'>, now = Date.now()): Promise<Subscription> {
    if (!/^did:key:z[1-9A-HJ-NP-Za-km-z]+$/.test(fields.account)) {
      throw new MincaError('invalid_input', `${fields.account} is not an account DID (did:key:z…)`);
    }
    for (const [name, v] of [
      ['spaces', fields.spaces],
      ['bytes', fields.bytes],
    ] as const) {
      if (!whole(v)) throw new MincaError('invalid_input', `${name} must be a whole number`);
    }
    const sub: Subscription = { id: randomBytes(8).toString('hex'), ...fields, created: now };
    await this.store.batch([
      { key: SUBSCRIPTION_PREFIX + sub.id, value: encode(sub) },
      this.#changed(),
    ]);
    return sub;
  }

  async get(id: string): Promise<Subscription | undefined> {
    if (!SUBSCRIPTION_ID.test(id)) return undefined;
    const bytes = await this.store.get(SUBSCRIPTION_PREFIX + id);
    return bytes ? decode(id, bytes) : undefined;
  }

  async list(): Promise<Subscription[]> {
    const out: Subscription[] = [];
    for (const key of await this.store.list(SUBSCRIPTION_PREFIX)) {
      const bytes = await this.store.get(key);
      if (bytes) out.push(decode(key.slice(SUBSCRIPTION_PREFIX.length), bytes));
    }
    return out;
  }

  async remove(id: string): Promise<boolean> {
    if (!(await this.get(id))) return false;
    await this.store.batch([{ key: SUBSCRIPTION_PREFIX + id, value: undefined }, this.#changed()]);
    return true;
  }

  /**
   * Every subscription of `account`, in force or not: from memory while the change mark is the
   * one they were read under, else all read again (the mark first, so a change made meanwhile
   * is read at the next call, never missed).
   */
  async ofAccount(account: string): Promise<readonly Subscription[]> {
    const bytes = await this.store.get(SUBSCRIPTION_CHANGE_KEY);
    const mark = bytes ? Buffer.from(bytes).toString('hex') : '';
    let read = this.#byAccount;
    if (read?.mark !== mark) {
      const subscriptions = new GroupedMap<Subscription>((s) => s.account);
      for (const sub of await this.list()) subscriptions.set(sub.id, sub);
      read = this.#byAccount = { mark, subscriptions };
    }
    return read.subscriptions.valuesOf(account);
  }

  /** The subscriptions of `account` in force at `now`. */
  async forAccount(account: string, now = Date.now()): Promise<Subscription[]> {
    return (await this.ofAccount(account)).filter((s) => (s.expires ?? Infinity) > now);
  }
}
