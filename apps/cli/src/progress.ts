/**
 * Progress bars (cli-progress) on stderr, only when stderr is a terminal and output is not
 * JSON: scripts and logs never see them.
 */
import cliProgress from 'cli-progress';
import type { Output } from './output.js';

export interface Progress {
  update(done: number, total: number): void;
  stop(): void;
}

const none: Progress = { update() {}, stop() {} };

export function progressBar(out: Output, label: string, stream = process.stderr): Progress {
  if (out.json || !stream.isTTY) return none;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: `${label} [{bar}] {percentage}% {value}/{total}`,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
