/** Test helpers for data folders (Node only): a simulated sync service between two folders. */
export {
  conflictCopyName,
  SimulatedSyncService,
  type SyncServiceOptions,
} from './sync-service.js';
