/** `minca init`: an account in a home folder, optionally kept in a data folder. */
import { join } from 'node:path';
import { createAccount, localStateDir } from '../account.js';
import type { Context } from '../context.js';
import { openAccountNode } from '../context.js';
import { table } from '../output.js';

export async function init(context: Context, options: { folder?: string }): Promise<void> {
  const { account } = await createAccount(context.home, options);
  // Opening the node once lays out the local state, so the first command finds it.
  const opened = await openAccountNode(context);
  await opened.close();
  const local = localStateDir(context.home, account.id, context.env);
  context.out.result(
    {
      did: account.did,
      account: account.id,
      home: account.home,
      local,
      folder: account.folder ?? null,
    },
    () =>
      table(
        ['', ''],
        [
          ['account', account.id],
          ['did', account.did],
          ['home', account.home],
          ['local state', join(local, 'stores')],
          ...(account.folder ? [['data folder', account.folder]] : []),
        ],
      )
        .split('\n')
        .slice(1)
        .join('\n'),
  );
}
