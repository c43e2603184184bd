/**
 * `@minca/core/testing`: the conformance suites every storage adapter and blob store runs, the
 * integrity check crash tests use, and waits for nodes to converge. Imports vitest and core
 * only, so it runs in a browser.
 */
export type { AdapterTestContext } from './adapter-harness.js';
export type { BlobStoreTestContext } from './blob-store-checks.js';
export { runBlobStoreTests } from './blob-store-suite.js';
export { isCheckedValue, makeCheckedValue } from './checked-value.js';
export { converged, fingerprint, until } from './converged.js';
export { checkStoreIntegrity, type IntegrityOptions, type IntegrityReport } from './integrity.js';
export { type MirrorTestContext, runMirrorTests } from './mirror-suite.js';
export { type RecordsTestContext, runRecordsTests } from './records.js';
export { seededRandom } from './seeded-random.js';
export { runStorageAdapterTests } from './storage-adapter-suite.js';
export { TestAccount, type TestDevice, type TestNodeKeys } from './test-account.js';
