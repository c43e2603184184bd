/**
 * `minca init`: an account in the home folder, or, with `--folder <dir>`, in a data folder that
 * then is the home: the registry and the spaces live in it, so it carries the whole account.
 */
import { resolve } from 'node:path';
import { createAccount } from '../account.js';
import { type Context, openAccountNode } from '../context.js';
import { table } from '../output.js';

export async function init(context: Context, options: { folder?: string }): Promise<void> {
  const home = options.folder ? resolve(options.folder) : context.home;
  const here = { ...context, home };
  const { account } = await createAccount(home, { folder: options.folder !== undefined });
  // Opening the node once lays out the stores, so the first command finds them.
  const opened = await openAccountNode(here);
  await opened.close();
  const value = {
    did: account.did,
    account: account.id,
    home,
    local: opened.local,
    folder: account.folder === true,
  };
  context.out.result(value, () => {
    const rows = [
      ['account', account.id],
      ['did', account.did],
      [account.folder ? 'data folder' : 'home', home],
      ['local state', opened.local],
    ];
    const lines = table(['', ''], rows).split('\n').slice(1);
    if (account.folder) lines.push('', `use it with --home ${home} (or MINCA_HOME)`);
    return lines.join('\n');
  });
}
