/**
 * An account for tests: its root key, and the certificates a node of it needs, issued here as
 * a real account's devices would issue them (spec 05 §2). Tests that need a certified writer
 * key take one from this rather than issuing certificates by hand.
 */
import { type Certificate, issueCertificate } from '../identity/certificate.js';
import { SigningKey } from '../keys.js';

/** A device of a {@link TestAccount}: its key and the root's certificate for it. */
export interface TestDevice {
  key: SigningKey;
  cert: { bytes: Uint8Array };
}

/** What a node of a {@link TestAccount} is made with (`NodeConfig.key` and `certificates`). */
export interface TestNodeKeys {
  key: SigningKey;
  certificates: Uint8Array[];
  /** The DID of the device that certified `key`, when one did. */
  device?: string;
}

/**
 * An account with a root key (new, or one the test holds, such as a fleet's key), whose devices
 * and writer keys it certifies.
 *
 * ```ts
 * const alice = new TestAccount();
 * const node = await createNode({ stores: memoryStores(), ...(await alice.node()) });
 * ```
 */
export class TestAccount {
  constructor(readonly root: SigningKey = SigningKey.generate()) {}

  /** The account's DID: its root key's. */
  get did(): string {
    return this.root.did;
  }

  /** A new device of the account: its key and the root's certificate. */
  async device(label = 'device'): Promise<TestDevice> {
    const key = SigningKey.generate();
    const cert = await this.#issue(this.root, { kind: 'device', subject: key.did, label });
    return { key, cert };
  }

  /**
   * What a node of this account needs: a fresh writer key certified by a new device (or by
   * `device`). With `spaces` or `reader`, or `byRoot`, the root certifies it itself: an app's
   * key limited to those spaces, an agent's that only reads, or a host of a fleet.
   */
  async node(
    options: {
      spaces?: string[];
      reader?: boolean;
      byRoot?: boolean;
      /** The root's certificate's label (an app's origin, say). */
      label?: string;
      device?: TestDevice;
    } = {},
  ): Promise<TestNodeKeys> {
    const writer = SigningKey.generate();
    if (options.spaces || options.reader || options.byRoot || options.label !== undefined) {
      const cert = await this.#issue(this.root, {
        kind: 'writer',
        subject: writer.did,
        ...(options.spaces ? { spaces: options.spaces } : {}),
        ...(options.reader ? { role: 'reader' as const, label: 'agent' } : {}),
        ...(options.label !== undefined ? { label: options.label } : {}),
      });
      return { key: writer, certificates: [cert.bytes] };
    }
    const device = options.device ?? (await this.device());
    const cert = await this.#issue(device.key, { kind: 'writer', subject: writer.did });
    return { key: writer, certificates: [device.cert.bytes, cert.bytes], device: device.key.did };
  }

  #issue(by: SigningKey, options: Omit<Certificate, 'issuer' | 'bytes' | 'account' | 'issued'>) {
    return issueCertificate(by, { ...options, account: this.root.did, issued: Date.now() });
  }
}
