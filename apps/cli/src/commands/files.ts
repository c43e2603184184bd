/**
 * `minca file add|read`. A file is named by a record, so that other devices fetch it and may
 * read it: `add` writes one (collection `app.file` by default) holding the FileRef, and `read`
 * reads the file a record names, fetching it from peers when it is not here yet.
 */
import { open, readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { type BodyValue, type FileRef, isFileRef } from '@minca/core';
import { CliError, EXIT } from '../cli-error.js';
import { type Context, withNode } from '../context.js';
import { waitForFirstPull } from '../first-pull.js';
import { linkTo } from '../links.js';
import { formatBytes } from '../output.js';
import { progressBar } from '../progress.js';
import { peersOf, timeoutOf } from './sync.js';

/** The same body with each FileRef's key left out: keys are never printed. */
export function withoutKeys(body: unknown): unknown {
  if (isFileRef(body)) {
    const { key: _key, ...rest } = body;
    return rest;
  }
  if (Array.isArray(body)) return body.map(withoutKeys);
  if (body !== null && typeof body === 'object' && !(body instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, withoutKeys(v)]));
  }
  return body;
}

function refsIn(body: unknown, out: FileRef[] = []): FileRef[] {
  if (isFileRef(body)) out.push(body);
  else if (Array.isArray(body)) for (const item of body) refsIn(item, out);
  else if (body !== null && typeof body === 'object' && !(body instanceof Uint8Array)) {
    for (const item of Object.values(body)) refsIn(item, out);
  }
  return out;
}

export async function fileAdd(
  context: Context,
  space: string,
  path: string,
  options: { collection?: string; mime?: string; name?: string },
): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) throw new CliError(EXIT.usage, `${path} is not a file`);
  const bytes = new Uint8Array(await readFile(path));
  const name = options.name ?? basename(path);
  const collection = options.collection ?? 'app.file';
  const bar = progressBar(context.out, `adding ${name}`);
  const result = await withNode(
    context,
    async ({ node }) => {
      const ref = await node.records.addFile(space, bytes, {
        name,
        ...(options.mime ? { mime: options.mime } : {}),
        onProgress: ({ done, total }) => bar.update(done, total),
      });
      const record = await node.records.put(space, collection, {
        file: ref,
        name,
        size: bytes.length,
      } as unknown as BodyValue);
      return { record: record.id, collection, file: ref.$file, name, size: bytes.length };
    },
    { writes: true },
  ).finally(() => bar.stop());
  context.out.result(
    result,
    () => `${result.record}  (file ${result.file.slice(0, 16)}…, ${formatBytes(result.size)})`,
  );
}

export async function fileRead(
  context: Context,
  space: string,
  collection: string,
  id: string,
  options: { out?: string; peer?: string[]; timeout?: string },
): Promise<void> {
  const bar = progressBar(context.out, 'reading');
  const timeoutMs = timeoutOf(context, options.timeout);
  const { bytes, ref } = await withNode(
    context,
    async ({ node }) => {
      const unpulled = await waitForFirstPull(node, space);
      if (unpulled) context.out.note(unpulled);
      const record = await node.records.get(space, collection, id);
      if (!record) throw new CliError(EXIT.notFound, `no record ${id} stands in ${collection}`);
      const [ref] = refsIn(record.body);
      if (!ref) throw new CliError(EXIT.notFound, `record ${id} names no file`);
      // Files not here come from peers: connect while reading.
      const links = peersOf(context, options.peer ?? []).map((url) => linkTo(node, url));
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), timeoutMs);
      try {
        const bytes = await node.records.readFile(space, ref, {
          signal: abort.signal,
          onProgress: ({ done, total }) => bar.update(done, total),
        });
        return { bytes, ref };
      } catch (error) {
        if (abort.signal.aborted) {
          throw new CliError(
            EXIT.unavailable,
            `file ${ref.$file.slice(0, 16)}… is not here and no peer gave it within ${timeoutMs / 1000} s: connect to one that has it (--peer), or raise --timeout`,
          );
        }
        throw error;
      } finally {
        clearTimeout(timer);
        for (const link of links) link.close();
      }
    },
    { writes: true },
  ).finally(() => bar.stop());
  const out = options.out ?? ref.name ?? ref.$file;
  if (out === '-') {
    process.stdout.write(bytes);
    return;
  }
  const handle = await open(out, 'wx', 0o600).catch((cause) => {
    throw new CliError(
      EXIT.usage,
      (cause as NodeJS.ErrnoException).code === 'EEXIST'
        ? `${out} is there already: pass --out with another path`
        : `cannot write ${out}: ${(cause as Error).message}`,
    );
  });
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
  context.out.result(
    { file: ref.$file, size: bytes.length, out },
    () => `${out}  (${formatBytes(bytes.length)})`,
  );
}
