/** The blob store suite: every check, registered with vitest, each over a fresh context. */
import { describe, it } from 'vitest';
import * as checks from './blob-store-checks.js';
import {
  type BlobStoreCheck,
  type BlobStoreTestContext,
  runBlobStoreCheck,
} from './blob-store-checks.js';
import * as reads from './blob-store-read-checks.js';

/** Every blob store check, by the title its test gets. */
export const BLOB_STORE_CHECKS: ReadonlyArray<readonly [string, BlobStoreCheck]> = [
  ['get is null when absent', checks.getNullWhenAbsent],
  ['put, get and overwrite', checks.putGetOverwrite],
  ['delete, and deleting an absent key succeeds', checks.deletes],
  ['list under a prefix, sorted, without siblings', checks.listsUnderPrefix],
  ['1 MiB blobs', checks.largeBlobs],
  ['300 keys', checks.manyBlobKeys],
  ['returned and given bytes are not aliased', checks.bytesAreNotAliased],
  ['keys outside the grammar are invalid_name', checks.invalidKeysRejected],
  ['ranged reads (getRange)', reads.rangedReads],
  ['a ranged read checks its arguments', reads.rangedReadArguments],
  ['folders under a prefix (listFolders), without siblings', reads.listsFolders],
];

/**
 * Registers the blob store conformance suite with vitest. Each test gets a fresh store from
 * `setup` and calls `teardown` after. Listings are expected to show completed writes.
 */
export function runBlobStoreTests(name: string, setup: () => Promise<BlobStoreTestContext>): void {
  describe(`blob store conformance: ${name}`, () => {
    for (const [title, check] of BLOB_STORE_CHECKS) {
      it(title, async () => runBlobStoreCheck(check, await setup()));
    }
  });
}
