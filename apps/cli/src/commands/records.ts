/** `minca put|get|list|delete`: records, JSON in and out. */
import type { MincaRecord } from '@minca/core';
import { readBody } from '../body-input.js';
import { CliError, EXIT } from '../cli-error.js';
import { type AccountNode, type Context, withNode } from '../context.js';
import { waitForFirstPull } from '../first-pull.js';
import { table } from '../output.js';
import { withoutKeys } from './files.js';

const WRITES = { writes: true };

/** Before a read: the space's first pull from its data folder, or a note saying it hasn't come. */
async function pulled(context: Context, { node }: AccountNode, space: string): Promise<void> {
  const note = await waitForFirstPull(node, space);
  if (note) context.out.note(note);
}

const summary = (r: MincaRecord) => ({
  id: r.id,
  collection: r.collection,
  version: r.version,
  timestamp: r.timestamp,
  author: r.author,
  files: r.files,
  conflicts: r.conflicts,
  body: withoutKeys(r.body),
});

export async function put(
  context: Context,
  space: string,
  collection: string,
  bodyArg: string | undefined,
  options: { id?: string },
): Promise<void> {
  const body = await readBody(bodyArg);
  const record = await withNode(
    context,
    ({ node }) => node.records.put(space, collection, body, options.id ? { id: options.id } : {}),
    WRITES,
  );
  context.out.result(summary(record), () => record.id);
}

export async function get(
  context: Context,
  space: string,
  collection: string,
  id: string,
): Promise<void> {
  const record = await withNode(context, async (opened) => {
    await pulled(context, opened, space);
    return opened.node.records.get(space, collection, id);
  });
  if (!record) throw new CliError(EXIT.notFound, `no record ${id} stands in ${collection}`);
  context.out.result(summary(record), () => JSON.stringify(withoutKeys(record.body), null, 2));
}

export async function list(
  context: Context,
  space: string,
  collection: string,
  options: { order?: string; limit?: string },
): Promise<void> {
  const order = options.order ?? 'id';
  if (!['id', 'newest', 'oldest'].includes(order)) {
    throw new CliError(EXIT.usage, `--order is id, newest or oldest, not ${order}`);
  }
  const limit = options.limit === undefined ? undefined : Number(options.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new CliError(EXIT.usage, `--limit is a whole number above 0, not ${options.limit}`);
  }
  const records = await withNode(context, async (opened) => {
    await pulled(context, opened, space);
    return opened.node.records.list(space, collection, {
      order: order as 'id' | 'newest' | 'oldest',
      ...(limit ? { limit } : {}),
    });
  });
  context.out.result(records.map(summary), () =>
    table(
      ['id', 'written', 'author', 'body'],
      records.map((r) => {
        const body = JSON.stringify(withoutKeys(r.body));
        return [
          r.id,
          new Date(r.timestamp).toISOString(),
          `…${r.author.slice(-8)}`,
          body.length > 60 ? `${body.slice(0, 59)}…` : body,
        ];
      }),
    ),
  );
}

export async function remove(
  context: Context,
  space: string,
  collection: string,
  id: string,
): Promise<void> {
  const deleted = await withNode(
    context,
    ({ node }) => node.records.delete(space, collection, id),
    WRITES,
  );
  if (!deleted) throw new CliError(EXIT.notFound, `no record ${id} stands in ${collection}`);
  context.out.result({ deleted: id }, () => `deleted ${id}`);
}
