/** Record bodies in: JSON from an argument, a file (`@path`) or stdin (`-`). */
import { readFile } from 'node:fs/promises';
import { assertBody, type BodyValue, encodeCbor, isMincaError, MAX_BODY_BYTES } from '@minca/core';
import { CliError, EXIT } from './cli-error.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * JSON text a body can come from: a body encodes to at most `MAX_BODY_BYTES`, and its JSON is
 * a few times that at most (escapes, spaces, long number forms). Past it, nothing is parsed.
 */
const MAX_BODY_TEXT = 4 * MAX_BODY_BYTES;

/**
 * Parses a body given as JSON text, `@file`, or `-` for stdin, and checks it as the node will:
 * a body too deep or too large is bad input (exit 7) before anything walks it.
 */
export async function readBody(arg: string | undefined): Promise<BodyValue> {
  let text: string;
  let from: string;
  if (arg === undefined || arg === '-') {
    if (arg === undefined && process.stdin.isTTY) {
      throw new CliError(EXIT.usage, 'give the body as JSON, @file, or pipe it in with -');
    }
    text = await readStdin();
    from = 'stdin';
  } else if (arg.startsWith('@')) {
    from = arg.slice(1);
    text = await readFile(from, 'utf8').catch((cause) => {
      throw new CliError(EXIT.usage, `cannot read ${from}: ${(cause as Error).message}`);
    });
  } else {
    text = arg;
    from = 'the argument';
  }
  if (text.length > MAX_BODY_TEXT) {
    throw new CliError(
      EXIT.badData,
      `the body from ${from} is ${text.length} characters, over ${MAX_BODY_TEXT}: put large things in a file (minca file add) (invalid_input)`,
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    throw new CliError(
      EXIT.badData,
      `the body from ${from} is not JSON: ${(cause as Error).message}`,
    );
  }
  try {
    // Walks the body without recursing: a body nested 100,000 deep stops at depth 32 here.
    assertBody(body);
  } catch (cause) {
    if (!isMincaError(cause)) throw cause;
    // Too deep or too large, it is bad input to the command either way.
    throw new CliError(EXIT.badData, `the body from ${from}: ${cause.message} (invalid_input)`, {
      cause,
    });
  }
  const size = encodeCbor(body).length;
  if (size > MAX_BODY_BYTES) {
    throw new CliError(
      EXIT.badData,
      `the body from ${from} encodes to ${size} bytes, over ${MAX_BODY_BYTES}: put large things in a file (minca file add) (invalid_input)`,
    );
  }
  return body;
}
