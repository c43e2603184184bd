/**
 * Secrets a person types — the recovery passphrase, a pairing code — come from an environment
 * variable (for scripts) or from the terminal with echo off. They are never printed, logged or
 * put in an error.
 */
import { CliError, EXIT } from './cli-error.js';

export interface SecretSource {
  env: NodeJS.ProcessEnv;
  /** The variable scripts set, such as `MINCA_PASSPHRASE`. */
  variable: string;
  /** What is asked for, for the prompt and errors: "the recovery passphrase". */
  what: string;
  /** Ask twice on a terminal, and refuse when the two differ (a new passphrase). */
  confirm?: boolean;
}

/** The secret from `source.variable`, else typed on the terminal without echo. */
export async function askSecret(source: SecretSource): Promise<string> {
  const given = source.env[source.variable];
  if (given !== undefined && given !== '') return given;
  const stdin = process.stdin;
  if (!stdin.isTTY || typeof stdin.setRawMode !== 'function') {
    throw new CliError(
      EXIT.usage,
      `no terminal to type ${source.what} on: set ${source.variable} for scripts`,
    );
  }
  const first = await readHidden(`${capitalize(source.what)}: `);
  if (!source.confirm) return first;
  const again = await readHidden(`Type ${source.what} again: `);
  if (again !== first) throw new CliError(EXIT.usage, `the two entries of ${source.what} differ`);
  return first;
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Reads one line from the terminal in raw mode, showing nothing of it. */
function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  let value = '';
  return new Promise((resolve, reject) => {
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          reject(new CliError(EXIT.failed, 'cancelled'));
          return;
        }
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
