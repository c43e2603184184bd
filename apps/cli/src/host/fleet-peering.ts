/**
 * A fleet host's connections to the other hosts (spec 06 §6.3): for each host the bucket lists
 * as live, the one of the two with the smaller DID keeps a connection to the other, so every
 * pair of live hosts is connected once. Over it they share the spaces both hold, and a write
 * reaching one reaches the other's clients within a hello, not at the next pull.
 */
import type { MincaNode } from '@minca/core';
import { type Link, linkTo } from '../links.js';
import type { FleetHost } from './fleet.js';

export class FleetPeering {
  readonly #links = new Map<string, { url: string; link: Link }>();

  constructor(
    private readonly node: MincaNode,
    /** This host's own key's DID. */
    private readonly self: string,
  ) {}

  /** Connects to the live hosts it should dial, and lets go of those gone. */
  update(hosts: readonly FleetHost[]): void {
    // One host per address: a host replaced at the same address leaves a stale record a while.
    const byUrl = new Map<string, FleetHost>();
    for (const h of hosts) if ((byUrl.get(h.url)?.at ?? -1) < h.at) byUrl.set(h.url, h);
    const live = new Map(
      [...byUrl.values()].filter((h) => this.self < h.did).map((h) => [h.did, h]),
    );
    for (const [did, { url, link }] of this.#links) {
      if (live.get(did)?.url === url) continue;
      link.close();
      this.#links.delete(did);
    }
    for (const [did, host] of live) {
      if (this.#links.has(did)) continue;
      this.#links.set(did, { url: host.url, link: linkTo(this.node, host.url) });
    }
  }

  /** The hosts connected now, by DID. */
  connected(): string[] {
    return [...this.#links].flatMap(([did, { link }]) => (link.peer()?.did ? [did] : []));
  }

  close(): void {
    for (const { link } of this.#links.values()) link.close();
    this.#links.clear();
  }
}
