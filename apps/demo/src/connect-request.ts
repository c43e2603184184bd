/**
 * The account home's side of connecting an app (spec 05 §18.2): the app opens this page in a
 * window (`#connect`), the page says it is ready, and the app asks — with its writer key's DID
 * and a MessagePort to sync over. Only the window that opened this one may ask, once; its
 * origin is who the app is: what the person is shown, what the certificate names, and the only
 * origin the answer can reach (`postMessage`'s target origin). Nothing secret goes before the
 * person approves.
 */
import { publicKeyFromDid } from '@minca/core';
import type { AppSpace } from './protocol.js';

export const PROTOCOL = 1;
const MAX_NAME = 80;
/** An origin as the certificate's label holds it (at most 100 characters). */
const MAX_ORIGIN = 100;

/** What an app asks. */
export interface ConnectRequest {
  /** Where it is: `http://127.0.0.1:5174`. */
  origin: string;
  /** The DID of the writer key it made for itself (its secret never leaves the app). */
  writer: string;
  /** What it calls itself: shown as the app's own words, next to its origin. */
  name: string;
  /** Its end of the channel the two sync over, once approved. */
  port: MessagePort;
}

export type Answer =
  | {
      type: 'minca-home:approved';
      v: 1;
      account: string;
      certificate: Uint8Array;
      spaces: AppSpace[];
    }
  | { type: 'minca-home:denied'; v: 1; reason: string };

/** Checks a message from the opener; a `TypeError` that says what is wrong otherwise. */
export function readRequest(event: MessageEvent): ConnectRequest {
  const data = event.data as Record<string, unknown> | null;
  if (data?.type !== 'minca-home:connect' || data.v !== PROTOCOL)
    throw new TypeError('not a connect request');
  const origin = event.origin;
  if (origin === 'null' || origin.length > MAX_ORIGIN || !/^https?:\/\//.test(origin))
    throw new TypeError('the app has no origin this home can answer');
  const writer = data.writer;
  if (typeof writer !== 'string') throw new TypeError('the app named no writer key');
  publicKeyFromDid(writer); // throws for anything but an Ed25519 did:key
  const name = typeof data.name === 'string' ? data.name.trim().slice(0, MAX_NAME) : '';
  const port = event.ports[0];
  if (!port || event.ports.length !== 1)
    throw new TypeError('the app sent no channel to sync over');
  return { origin, writer, name: name || 'An app', port };
}

/**
 * Waits for the one request the opener sends, telling it this page is ready (a message with
 * nothing in it, so any origin may hear it). Messages from anyone else are ignored.
 */
export function awaitRequest(opener: Window): Promise<ConnectRequest> {
  return new Promise((resolve, reject) => {
    const heard = (event: MessageEvent) => {
      if (event.source !== opener) return;
      removeEventListener('message', heard);
      try {
        resolve(readRequest(event));
      } catch (error) {
        reject(error);
      }
    };
    addEventListener('message', heard);
    opener.postMessage({ type: 'minca-home:ready', v: PROTOCOL }, '*');
  });
}

/** Answers the app, at its origin only: if the opener went elsewhere, nothing is delivered. */
export function answer(opener: Window, origin: string, message: Answer): void {
  opener.postMessage(message, origin);
}

/** Resolves when the app says it holds what it was given (or the window is closing). */
export function awaitSynced(opener: Window, origin: string): Promise<void> {
  return new Promise((resolve) => {
    const heard = (event: MessageEvent) => {
      if (event.source !== opener || event.origin !== origin) return;
      if ((event.data as { type?: unknown } | null)?.type !== 'minca-home:synced') return;
      removeEventListener('message', heard);
      resolve();
    };
    addEventListener('message', heard);
  });
}
