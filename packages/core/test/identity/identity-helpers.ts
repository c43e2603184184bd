/** An account with devices and writers, for the identity tests: keys made here, certified by its root. */
import { issueCertificate } from '../../src/identity/certificate.js';
import { SigningKey } from '../../src/keys.js';
import type { NodeConfig } from '../../src/node.js';

export class TestAccount {
  readonly root = SigningKey.generate();

  get did(): string {
    return this.root.did;
  }

  /** A new device of the account: its key and the root's certificate. */
  async device(label = 'device') {
    const key = SigningKey.generate();
    const cert = await issueCertificate(this.root, {
      kind: 'device',
      subject: key.did,
      account: this.root.did,
      issued: Date.now(),
      label,
    });
    return { key, cert };
  }

  /**
   * What a node of this account needs: a fresh writer key certified by a new device (or, with
   * `spaces`, by the root, limited to those spaces: an app's key).
   */
  async node(
    options: { spaces?: string[]; device?: { key: SigningKey; cert: { bytes: Uint8Array } } } = {},
  ): Promise<Pick<NodeConfig, 'key' | 'certificates'> & { device?: string }> {
    const writer = SigningKey.generate();
    if (options.spaces) {
      const cert = await issueCertificate(this.root, {
        kind: 'writer',
        subject: writer.did,
        account: this.root.did,
        issued: Date.now(),
        spaces: options.spaces,
      });
      return { key: writer, certificates: [cert.bytes] };
    }
    const device = options.device ?? (await this.device());
    const cert = await issueCertificate(device.key, {
      kind: 'writer',
      subject: writer.did,
      account: this.root.did,
      issued: Date.now(),
    });
    return { key: writer, certificates: [device.cert.bytes, cert.bytes], device: device.key.did };
  }
}
