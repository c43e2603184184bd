/**
 * Short invite links. An invite code is about 1,050 characters (spec 05 §7.2: the space key,
 * the invite secret and the owner's signed offer and holder versions), too long to send in a
 * message. So the page seals the code, with the names the joiner is shown, under a fresh
 * 128-bit AES-GCM key, keeps the sealed bytes on the demo's server under a short random id,
 * and gives the link `<page>#join=<id>.<key>`: about 60 characters. The key is in the URL's
 * fragment, which browsers never send to a server, so the server holds nothing it can open;
 * whoever has the link can join, exactly as with the code itself.
 */
import type { Invite } from './protocol.js';

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
const fromB64url = (text: string) =>
  Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0));

/** `<id>.<key>`: the id the server gave, and 16 bytes of key as 22 base64url characters. */
const TOKEN = /^([A-Za-z0-9_-]{12})\.([A-Za-z0-9_-]{22})$/;
const IV_BYTES = 12;
const MAX_NAME = 80;

export class InviteLinkError extends Error {}

async function aesKey(raw: Uint8Array, use: KeyUsage) {
  return crypto.subtle.importKey('raw', raw.slice(), 'AES-GCM', false, [use]);
}

/** Seals `invite`, keeps it on the server, and gives the short link to it. */
export async function shortLink(invite: Invite, page: string): Promise<string> {
  const raw = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const plain = new TextEncoder().encode(JSON.stringify({ v: 1, ...invite }));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await aesKey(raw, 'encrypt'), plain),
  );
  const body = new Uint8Array(IV_BYTES + sealed.length);
  body.set(iv);
  body.set(sealed, IV_BYTES);
  const answer = await fetch('/invites', { method: 'POST', body });
  if (!answer.ok) throw new InviteLinkError(`the server kept no link: ${await answer.text()}`);
  const { id } = (await answer.json()) as { id: string };
  return `${page}#join=${id}.${b64url(raw)}`;
}

/** The token of a short link (`…#join=<token>`), or the token itself; undefined otherwise. */
export function linkToken(text: string): string | undefined {
  const trimmed = text.trim();
  const token = trimmed.includes('#')
    ? new URLSearchParams(trimmed.slice(trimmed.indexOf('#') + 1)).get('join')
    : trimmed;
  return token && TOKEN.test(token) ? token : undefined;
}

const text = (value: unknown, max: number) =>
  typeof value === 'string' ? value.trim().slice(0, max) : '';

/**
 * The invite a short link points at. Its names are what the inviter's page wrote: the joiner is
 * told them as such. Rejects with an {@link InviteLinkError} when the link does not open.
 */
export async function openLink(token: string): Promise<Invite> {
  const match = TOKEN.exec(token);
  if (!match) throw new InviteLinkError('this is not an invite link');
  const [, id, key] = match as unknown as [string, string, string];
  const answer = await fetch(`/invites/${id}`).catch(() => undefined);
  if (!answer?.ok) {
    throw new InviteLinkError(
      answer?.status === 404
        ? 'this invite link is not known here: it may be mistyped or expired'
        : 'the invite could not be fetched: are you online?',
    );
  }
  const body = new Uint8Array(await answer.arrayBuffer());
  let value: Record<string, unknown>;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: body.subarray(0, IV_BYTES) },
      await aesKey(fromB64url(key), 'decrypt'),
      body.subarray(IV_BYTES),
    );
    value = JSON.parse(new TextDecoder().decode(plain)) as Record<string, unknown>;
  } catch {
    throw new InviteLinkError('this invite link does not open: part of it may be missing');
  }
  const space = (value.space ?? {}) as Record<string, unknown>;
  const from = (value.from ?? {}) as Record<string, unknown>;
  if (value.v !== 1 || typeof value.code !== 'string' || typeof space.id !== 'string') {
    throw new InviteLinkError('this invite link does not hold an invite');
  }
  return {
    code: value.code,
    space: { id: space.id, name: text(space.name, MAX_NAME) || 'a space' },
    from: { did: text(from.did, 100), name: text(from.name, MAX_NAME) || 'Someone' },
  };
}
