/**
 * The names sync services give the copies they keep when two devices changed one file
 * (spec 05 §14.4). A data folder reads them as other values of the file they copy, rather
 * than skipping them or failing on them.
 *
 * - Syncthing: `<stem>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device id, 7 characters>.<ext>`
 * - Dropbox: `<stem> (<someone>'s conflicted copy <YYYY-MM-DD>).<ext>`, also without the
 *   someone, and with ` (1)`-style counters inside the parentheses.
 */
import { FILE_SUFFIX } from './file-names.js';

const SYNCTHING = /^([^.\s]+)\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}\.minca$/;
const DROPBOX = /^([^.\s]+) \([^()/]*conflicted copy[^()/]*\)\.minca$/;

/**
 * The name of the file `name` is a sync service's conflict copy of (`x.minca` for
 * `x.sync-conflict-20261202-101010-ABCDEFG.minca`), or `undefined` when it is none.
 */
export function conflictOf(name: string): string | undefined {
  const match = SYNCTHING.exec(name) ?? DROPBOX.exec(name);
  return match ? match[1] + FILE_SUFFIX : undefined;
}
