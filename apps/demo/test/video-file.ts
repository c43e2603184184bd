/**
 * A test video made here with Debian's ffmpeg (scripts/bootstrap.mjs installs it with the
 * browser): H.264 in MP4 with its index (moov) first, at a constant rate so its size is known
 * ahead, with noise so nothing compresses it away. Made once into test-artifacts/.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../test-artifacts/video/', import.meta.url));

export const HAS_FFMPEG = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * The path of an MP4 of `seconds` at 640 × 360, 30 frames a second, of about `bytes` (within a
 * few percent), its index first.
 */
export async function testVideo(seconds: number, bytes: number): Promise<string> {
  const path = join(DIR, `noise-${seconds}s-${bytes}.mp4`);
  if (existsSync(path)) return path;
  mkdirSync(DIR, { recursive: true });
  const kbits = Math.round((bytes * 8) / seconds / 1000);
  const partial = `${path}.part.mp4`;
  await new Promise<void>((resolve, reject) =>
    execFile(
      'ffmpeg',
      [
        ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi'],
        ...['-i', `testsrc2=size=640x360:rate=30,noise=alls=30:allf=t`, '-t', String(seconds)],
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '30'],
        ...['-b:v', `${kbits}k`, '-minrate', `${kbits}k`, '-maxrate', `${kbits}k`],
        ...['-bufsize', `${kbits / 2}k`, '-movflags', '+faststart', partial],
      ],
      (error, _out, stderr) => (error ? reject(new Error(`ffmpeg: ${stderr}`)) : resolve()),
    ),
  );
  renameSync(partial, path);
  const size = statSync(path).size;
  if (Math.abs(size - bytes) > bytes * 0.06)
    throw new Error(`ffmpeg made ${size} bytes, not about ${bytes}`);
  return path;
}
