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
   * `spaces` or `reader`, by the root, limited to those spaces or to reading: an app's or an
   * agent's key).
   */
  async node(
    options: {
      spaces?: string[];
      reader?: boolean;
      device?: { key: SigningKey; cert: { bytes: Uint8Array } };
    } = {},
  ): Promise<Pick<NodeConfig, 'key' | 'certificates'> & { device?: string }> {
    const writer = SigningKey.generate();
    if (options.spaces || options.reader) {
      const cert = await issueCertificate(this.root, {
        kind: 'writer',
        subject: writer.did,
        account: this.root.did,
        issued: Date.now(),
        ...(options.spaces ? { spaces: options.spaces } : {}),
        ...(options.reader ? { role: 'reader' as const, label: 'agent' } : {}),
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
