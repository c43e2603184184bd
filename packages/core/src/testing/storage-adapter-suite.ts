/** The storage adapter suite: every check, registered with vitest, each over a fresh context. */
import { describe, it } from 'vitest';
import {
  type AdapterCheck,
  type AdapterSuiteOptions,
  type AdapterTestContext,
  runAdapterCheck,
} from './adapter-harness.js';
import * as entry from './entry-checks.js';
import * as lifecycle from './lifecycle-checks.js';
import * as listing from './listing-checks.js';
import * as optional from './optional-method-checks.js';
import * as scale from './scale-checks.js';

/** Every storage adapter check, by the title its test gets. */
export const STORAGE_ADAPTER_CHECKS: ReadonlyArray<readonly [string, AdapterCheck]> = [
  ['get, list and batch round trip', entry.roundTrip],
  ['absent keys and versions are undefined', entry.absentIsUndefined],
  ['a write overwrites', entry.overwrite],
  ['batch deletes', entry.deleteThroughBatch],
  ['a failed batch writes nothing', entry.failedBatchWritesNothing],
  ['a batch is all or nothing to a reader', entry.batchIsAtomicToReaders],
  ['versions put, get and delete', entry.versionsRoundTrip],
  ['returned and given bytes are not aliased', entry.bytesAreNotAliased],
  ['a subarray stores only its own bytes', entry.viewsStoreOnlyTheirBytes],
  ['the empty prefix lists all', listing.emptyPrefixListsAll],
  ['prefixes of each other list apart', listing.nestedPrefixes],
  ['listing foo does not return fop', listing.siblingTrap],
  ['keys with / : spaces and unicode', listing.oddCharacters],
  ['keys near prefix + \\uffff', listing.upperBoundKeys],
  ['list sorts by UTF-16 code units', listing.sortedByCodeUnits],
  ['256 KiB and 1 MiB values', scale.largeValues],
  ['10,000 keys', scale.manyKeys],
  ['10,000 versions (large)', scale.manyVersions],
  ['concurrent writes all land', scale.concurrentWrites],
  ['entries answers as list and get do', optional.entriesMatchesRequired],
  ['count answers as list does', optional.countMatchesRequired],
  ['getVersions answers as getVersion does', optional.getVersionsMatchesRequired],
  ['commit writes as the fallback does', optional.commitMatchesRequired],
  ['unnamedFiles answers as the listings do', optional.unnamedFilesMatchesRequired],
  ['without commit, versions land before entries before deletes', optional.writeOrderWithoutCommit],
  ['two stores of one factory are independent', lifecycle.storesAreIndependent],
  ['reopening keeps entries and versions', lifecycle.reopenKeepsEverything],
];

/** Checks that run only with `options.large`. */
const LARGE_ONLY = new Set<AdapterCheck>([scale.manyVersions]);

/**
 * Registers the storage adapter conformance suite with vitest. Each test gets a fresh context
 * from `setup`, closes what it opened, then calls `teardown`.
 */
export function runStorageAdapterTests(
  name: string,
  setup: () => Promise<AdapterTestContext>,
  options: AdapterSuiteOptions = {},
): void {
  describe(`storage adapter conformance: ${name}`, () => {
    for (const [title, check] of STORAGE_ADAPTER_CHECKS) {
      const register = LARGE_ONLY.has(check) && !options.large ? it.skip : it;
      register(title, async () => runAdapterCheck(check, await setup(), options));
    }
  });
}
