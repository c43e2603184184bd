/** Record bodies in: JSON from an argument, a file (`@path`) or stdin (`-`). */
import { readFile } from 'node:fs/promises';
import type { BodyValue } from '@minca/core';
import { CliError, EXIT } from './cli-error.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Parses a body given as JSON text, `@file`, or `-` for stdin. */
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
  try {
    return JSON.parse(text) as BodyValue;
  } catch (cause) {
    throw new CliError(
      EXIT.badData,
      `the body from ${from} is not JSON: ${(cause as Error).message}`,
    );
  }
}
