/**
 * A {@link SpaceTicket} as text for an invite link: base64url of its JSON, bytes as base64url.
 * It carries the owner's grant of the host's role, so a joiner knows the host is a member.
 */
import { MincaError, type SpaceTicket } from '@minca/core';

const MAX_TEXT = 16 * 1024;

const toB64 = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
const fromB64 = (text: string) =>
  Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0));

export function encodeTicket(ticket: SpaceTicket): string {
  const json = JSON.stringify({
    id: ticket.id,
    key: toB64(ticket.key),
    owner: ticket.owner,
    versions: ticket.versions.map(toB64),
  });
  return toB64(new TextEncoder().encode(json));
}

/** The ticket in `text`; `invalid_input` for anything that isn't one. */
export function decodeTicket(text: string): SpaceTicket {
  try {
    if (text.length > MAX_TEXT) throw new Error('too long');
    const value = JSON.parse(new TextDecoder().decode(fromB64(text))) as Record<string, unknown>;
    const { id, key, owner, versions } = value;
    if (
      typeof id !== 'string' ||
      typeof key !== 'string' ||
      typeof owner !== 'string' ||
      !Array.isArray(versions) ||
      !versions.every((v) => typeof v === 'string')
    )
      throw new Error('not a ticket');
    return { id, key: fromB64(key), owner, versions: versions.map(fromB64) };
  } catch (cause) {
    throw new MincaError('invalid_input', 'the invite link’s host part is not a space ticket', {
      cause,
    });
  }
}
