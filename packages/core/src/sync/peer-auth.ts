/**
 * A connection's handshake (spec 05 §8 "Handshake"): each side says `hi` with its writer DID and
 * a nonce, then signs both DIDs and both nonces in its `auth` with its certificates; the peer is
 * known once its signature and certificates hold. A revoked key is known as itself, so it is a
 * member of nothing.
 */
import { randomBytes } from '@noble/ciphers/utils.js';
import { MincaError } from '../errors.js';
import { verifyChain } from '../identity/writer-chain.js';
import { verifySignature } from '../keys.js';
import { handshakeBytes } from './handshake.js';
import { type Message, PROTOCOL_VERSION } from './messages.js';
import type { SyncHost } from './sync-host.js';

/** The peer, proven. */
export interface ProvenPeer {
  /** Its account; its writer key alone when that or its device is revoked. */
  did: string;
  /** The writer key it signed with. */
  writer: string;
  /** Its nonce, from its `hi`. */
  nonce: Uint8Array;
  /** The spaces its certificates limit it to, if they do (an app's key). */
  spaces?: readonly string[];
}

export class PeerAuth {
  /** This side's nonce, sent in its `hi`. */
  readonly nonce = randomBytes(32);
  #claimed: { did: string; nonce: Uint8Array } | undefined;
  #authSent = false;
  #proven = false;

  constructor(
    private readonly host: SyncHost,
    private readonly send: (message: Message) => void,
  ) {}

  /** This side's `hi`, sent as the connection opens. */
  hi(): Message {
    return { t: 'hi', v: PROTOCOL_VERSION, d: this.host.did, n: this.nonce };
  }

  /** The peer's `hi`: this side answers with its `auth`. */
  async onHi(m: Extract<Message, { t: 'hi' }>): Promise<void> {
    if (this.#claimed) throw new MincaError('protocol', 'a second hi');
    if (m.v !== PROTOCOL_VERSION)
      throw new MincaError('protocol', `protocol version ${m.v} is not ${PROTOCOL_VERSION}`);
    if (m.d === this.host.did) throw new MincaError('protocol', 'the peer claims to be this node');
    this.#claimed = { did: m.d, nonce: m.n };
    const chain = this.host.chain;
    this.send({
      t: 'auth',
      g: await this.host.sign(handshakeBytes(this.host.did, m.d, m.n, this.nonce)),
      ...(chain.length > 0 ? { c: [...chain] } : {}),
    });
    this.#authSent = true;
  }

  /** The peer's `auth`: who it is, once its signature and certificates hold; `protocol` if not. */
  async onAuth(m: Extract<Message, { t: 'auth' }>): Promise<ProvenPeer> {
    if (!this.#claimed || !this.#authSent || this.#proven)
      throw new MincaError('protocol', 'auth out of turn');
    const { did: writer, nonce } = this.#claimed;
    if (
      !(await verifySignature(
        writer,
        handshakeBytes(writer, this.host.did, this.nonce, nonce),
        m.g,
      ))
    )
      throw new MincaError('protocol', 'the peer did not prove its key');
    const identity = await verifyChain(writer, m.c ?? []).catch((cause) => {
      throw new MincaError('protocol', `the peer's certificates do not hold`, { cause });
    });
    // A revoked key still talks, but for nobody: it is a member of nothing.
    const revoked = async (subject: string | undefined) =>
      subject !== undefined && (await this.host.revoked?.(subject, identity.account)) === true;
    const did =
      (await revoked(writer)) || (await revoked(identity.device)) ? writer : identity.account;
    this.#proven = true;
    return { did, writer, nonce, ...(identity.spaces ? { spaces: identity.spaces } : {}) };
  }
}
