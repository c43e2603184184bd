/**
 * The records every load run writes and counts (the host load, the soak, the fleet's clients):
 * each client writes a small message now and then, and looks at what arrived from the others,
 * timing each from its write.
 */
import type { MincaNode } from '@minca/core';
import { sleep } from './host-process.js';

export const COLLECTION = 'app.msg';
/** A load message: its writer's index, its number, and when it was written. */
export type Message = { w: number; n: number; at: number };

/** A client of a load run, as writing and counting need it. */
export interface LoadClient {
  index: number;
  space: string;
  node: MincaNode;
  /** Records seen so far, its own included. */
  seen: Set<string>;
  written: number;
}

/** Writes one message every `everyMs` until `until` (a Date.now() time). */
export async function writeUntil(client: LoadClient, until: number, everyMs: number) {
  while (Date.now() < until) {
    const body: Message = { w: client.index, n: client.written, at: Date.now() };
    const record = await client.node.records.put(client.space, COLLECTION, body);
    client.seen.add(record.id);
    client.written++;
    await sleep(everyMs);
  }
}

/**
 * Others' messages among the newest `look` of the space that the client had not seen:
 * each as when it was written and how long it took to arrive.
 */
export async function arrivals(
  client: LoadClient,
  look: number,
): Promise<Array<[at: number, ms: number]>> {
  const now = Date.now();
  const recent = await client.node.records.list<Message>(client.space, COLLECTION, {
    order: 'newest',
    limit: look,
  });
  const out: Array<[number, number]> = [];
  for (const record of recent) {
    if (client.seen.has(record.id)) continue;
    client.seen.add(record.id);
    if (record.body.w !== client.index) out.push([record.body.at, now - record.body.at]);
  }
  return out;
}
