// Drives a node in a child process (fixtures/ws-node.mjs): one JSON command per line in, one
// JSON answer per line out. Every child is killed when the test ends.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./fixtures/ws-node.mjs', import.meta.url));

export class ChildNode {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #lines: string[] = [];
  #waiters: Array<(line: string) => void> = [];
  stderr = '';

  constructor(role: 'serve' | 'join', count: number) {
    this.#child = spawn(process.execPath, [script, role, String(count)], { stdio: 'pipe' });
    this.#child.stderr.on('data', (d) => (this.stderr += d));
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
  }

  /** Sends a command and waits (at most `ms`) for its one-line answer. */
  async ask<T = Record<string, unknown>>(
    command: Record<string, unknown>,
    ms = 30_000,
  ): Promise<T> {
    this.#child.stdin.write(`${JSON.stringify(command)}\n`);
    const line =
      this.#lines.shift() ??
      (await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no answer to ${command.cmd} in ${ms} ms: ${this.stderr}`)),
          ms,
        );
        this.#waiters.push((l) => {
          clearTimeout(timer);
          resolve(l);
        });
      }));
    return JSON.parse(line) as T;
  }

  kill(): void {
    this.#child.kill('SIGKILL');
  }
}
