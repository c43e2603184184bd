export * from './adapter.js';
export { assertBodyBytes, assertCommit, assertVersionKey, assertWrites } from './adapter-args.js';
export * from './blob-store.js';
export type { BodyValue } from './body.js';
export { MAX_BODY_BYTES, MAX_BODY_DEPTH } from './body.js';
export { HybridClock } from './clock.js';
export { decodeStrict, encodeCbor } from './encoding.js';
export * from './errors.js';
export { type FileRef, fileIdsIn, isFileRef } from './file-ref.js';
export type { AbortSignalLike } from './files/abort.js';
export { chunkChecks, hashChunk } from './files/chunk-hash.js';
export {
  CHUNK_BYTES,
  type ChunkList,
  chunkMatches,
  decodeList as decodeChunkList,
  MAX_FILE_BYTES,
} from './files/chunks.js';
export { DEFAULT_FILE_LIMITS, type FileLimits } from './files/limits.js';
export type { FilesChange } from './files/node-files.js';
export type { FileSource, FileSourceProvider } from './files/source.js';
export type {
  AddFileOptions,
  FileProgress,
  FilesSpace,
  ReadFileOptions,
} from './files/space-files.js';
export { accessProofBytes, spaceAccessKey } from './hosting/access-key.js';
export { HOLDER_COLLECTION, type HolderKind } from './hosting/holders.js';
export type { DataOffer, HoldingPolicy, SpaceOffer } from './hosting/holding-policy.js';
export { IdSum } from './id-sum.js';
export { hashId, randomId } from './ids.js';
export { didFromPublicKey, publicKeyFromDid, SigningKey, verifySignature } from './keys.js';
export { LruBodyCache } from './lru.js';
export type { Role } from './membership.js';
export { MirrorFileSource } from './mirror/mirror-files.js';
export { mirrorStatePath } from './mirror/mirror-state.js';
export { MAX_SEGMENT_BYTES, SEGMENT_BYTES } from './mirror/segment.js';
export {
  COMPACT_MIN_SEGMENTS,
  type MirrorErrorContext,
  type MirrorStatus,
} from './mirror/space-mirror.js';
export type { MirrorErrorListener, MirrorInput } from './mirror/space-mirrors.js';
export { assertCollectionName, isCollectionName } from './names.js';
export {
  createNode,
  type HeldSpaceInfo,
  MincaNode,
  type NodeConfig,
  type SpaceInfo,
  type SpaceStatus,
  type SpaceTicket,
} from './node.js';
export { open as openSealed, randomKey, SEAL_OVERHEAD, seal } from './seal.js';
export { sealedStores } from './sealed-stores.js';
export type { ListOptions, MincaRecord, SpaceChange } from './space.js';
export { DEFAULT_BODY_CACHE, Store, type StoreChange, versionIndexKey } from './store.js';
export * from './store-io.js';
export { createMemoryTransportPair, type MemoryTransportOptions } from './sync/memory-transport.js';
export { createMessagePortTransport, type MessagePortLike } from './sync/message-port-transport.js';
export type { Peer, PeerSpaceStatus } from './sync/peer.js';
export type { Transport } from './sync/transport.js';
export {
  createWebSocketTransport,
  keepConnected,
  type ReconnectOptions,
  type WebSocketLike,
} from './sync/websocket-transport.js';
export {
  createVersion,
  decodeVersion,
  MAX_FILES,
  openBody,
  type Version,
  type VersionDraft,
} from './version.js';
