/**
 * Asking the account home for a connection (spec 05 §18.2), from this app's side. The app makes
 * its own writer key first and sends only its DID; it opens the home in a window, waits for it to
 * say it is ready, asks with a MessagePort to sync over, and takes the answer only from that
 * window at the home's origin. The answer is checked before anything is kept: a certificate
 * from the account's root for exactly this key, and a ticket for each space it names.
 */
import {
  decodeCertificate,
  publicKeyFromDid,
  SigningKey,
  type SpaceTicket,
  verifyCertificate,
} from '@minca/core';

const PROTOCOL = 1;
/** How long the person has to answer in the home's window. */
const ANSWER_MS = 10 * 60_000;

export interface Connection {
  /** The account's DID: the root that certified this app's key. */
  account: string;
  /** This app's writer key, made here; its secret never left. */
  key: SigningKey;
  /** The root's certificate of `key`, limited to `spaces`. */
  certificate: Uint8Array;
  spaces: Array<{ ticket: SpaceTicket; name: string }>;
  /** This app's end of the channel the home syncs the spaces over. */
  port: MessagePort;
  /** Tells the home the app holds its spaces: the home's window closes. */
  done(): void;
}

export class ConnectError extends Error {}

type Data = Record<string, unknown> | null;

/** Checks the home's answer; a `ConnectError` saying what is wrong otherwise. */
async function readApproval(
  data: Data,
  key: SigningKey,
): Promise<Omit<Connection, 'port' | 'done'>> {
  const account = data?.account;
  if (typeof account !== 'string') throw new ConnectError('the home named no account');
  publicKeyFromDid(account);
  if (!(data?.certificate instanceof Uint8Array))
    throw new ConnectError('the home sent no certificate');
  const cert = decodeCertificate(data.certificate);
  await verifyCertificate(cert);
  if (
    cert.kind !== 'writer' ||
    cert.subject !== key.did ||
    cert.account !== account ||
    cert.issuer !== account ||
    !cert.spaces
  )
    throw new ConnectError('the certificate is not the account root’s, for this app’s key');
  const spaces = Array.isArray(data.spaces) ? (data.spaces as Connection['spaces']) : [];
  const ids = spaces.map((s) => s?.ticket?.id).sort();
  if (ids.length !== cert.spaces.length || ids.some((id, i) => id !== cert.spaces![i]))
    throw new ConnectError('the spaces handed over are not those the certificate names');
  return {
    account,
    key,
    certificate: data.certificate,
    spaces: spaces.map((s) => ({ ticket: s.ticket, name: String(s.name ?? '').slice(0, 80) })),
  };
}

/**
 * Opens the account home at `home` and asks it to connect this app (`name` is what the person
 * is shown beside this page's origin). Resolves once they allowed it; rejects if they didn't,
 * closed the window, or the browser blocked it.
 */
export function connectToHome(home: string, name: string): Promise<Connection> {
  const homeOrigin = new URL(home).origin;
  const key = SigningKey.generate();
  const channel = new MessageChannel();
  const popup = window.open(
    new URL('#connect', home).href,
    'minca-home',
    'popup,width=560,height=760',
  );
  if (!popup)
    return Promise.reject(
      new ConnectError('the browser blocked the home’s window: allow pop-ups here'),
    );
  return new Promise((resolve, reject) => {
    let asked = false;
    let settled = false;
    const finish = (error?: Error) => {
      settled = true;
      clearInterval(watch);
      clearTimeout(timer);
      removeEventListener('message', heard);
      if (error) {
        channel.port1.close();
        reject(error);
      }
    };
    const watch = setInterval(() => {
      if (popup.closed && !settled)
        finish(new ConnectError('the home’s window closed before you allowed it'));
    }, 250);
    const timer = setTimeout(() => finish(new ConnectError('no answer from the home')), ANSWER_MS);
    const heard = (event: MessageEvent) => {
      // Only the window we opened, at the home's origin: anything else may be anyone.
      if (event.source !== popup || event.origin !== homeOrigin) return;
      const data = event.data as Data;
      if (data?.v !== PROTOCOL) return;
      if (data.type === 'minca-home:ready' && !asked) {
        asked = true;
        popup.postMessage(
          { type: 'minca-home:connect', v: PROTOCOL, writer: key.did, name },
          homeOrigin,
          [channel.port2],
        );
      } else if (data.type === 'minca-home:denied') {
        finish(
          new ConnectError(`the home did not connect: ${String(data.reason ?? '').slice(0, 200)}`),
        );
      } else if (data.type === 'minca-home:approved' && asked) {
        readApproval(data, key).then(
          (approved) => {
            finish();
            resolve({
              ...approved,
              port: channel.port1,
              done: () => popup.postMessage({ type: 'minca-home:synced', v: PROTOCOL }, homeOrigin),
            });
          },
          (error: Error) => finish(error),
        );
      }
    };
    addEventListener('message', heard);
  });
}
