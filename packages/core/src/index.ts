export * from './adapter.js';
export { assertBodyBytes, assertCommit, assertVersionKey, assertWrites } from './adapter-args.js';
export * from './blob-store.js';
export type { BodyValue } from './body.js';
export { assertBody, MAX_BODY_BYTES, MAX_BODY_DEPTH } from './body.js';
export { HybridClock } from './clock.js';
export { decodeStrict, encodeCbor } from './encoding.js';
export * from './errors.js';
export { type FileRef, fileIdsIn, isFileRef } from './file-ref.js';
export type { AbortSignalLike } from './files/abort.js';
export { chunkChecks, hashChunk } from './files/chunk-hash.js';
export type { FileChunksConfig } from './files/chunk-shelf.js';
export {
  CHUNK_BYTES,
  type ChunkList,
  chunkMatches,
  decodeList as decodeChunkList,
  MAX_FILE_BYTES,
} from './files/chunks.js';
export type { FileAnswer, FileAsk, FileChannel } from './files/file-channel.js';
export type { BlobLike, FileInput, ReadableStreamLike } from './files/file-input.js';
export { DEFAULT_FILE_LIMITS, type FileLimits } from './files/limits.js';
export type { FilesChange } from './files/node-files.js';
export type { ByteRange, OpenFile } from './files/open-file.js';
export type { RangeReadOptions } from './files/range-reader.js';
export type { FileSource, FileSourceProvider } from './files/source.js';
export type { AddFileOptions, FileProgress, ReadFileOptions } from './files/space-files.js';
export { spaceAccessKey } from './hosting/access-key.js';
export type {
  DataOffer,
  HeldSpaceRecord,
  HoldingPolicy,
  SpaceOffer,
} from './hosting/holding-policy.js';
export { IdSum } from './id-sum.js';
export {
  type Certificate,
  type CertificateKind,
  decodeCertificate,
  issueCertificate,
  issueRevocation,
  type Revocation,
  type Signer,
  verifyCertificate,
  verifyRevocation,
} from './identity/certificate.js';
export { verifyChain, type WriterIdentity } from './identity/writer-chain.js';
export { hashId, randomId } from './ids.js';
export {
  checkPlatformCrypto,
  didFromPublicKey,
  type ManySignFunction,
  type PlatformCrypto,
  publicKeyFromDid,
  type SignatureCheck,
  type SignFunction,
  SigningKey,
  verifySignature,
} from './keys.js';
export { DEFAULT_BODY_CACHE_BYTES, LruBodyCache } from './lru.js';
export { MirrorFileSource } from './mirror/mirror-files.js';
export { mirrorStatePath } from './mirror/mirror-state.js';
export { MAX_SEGMENT_BYTES, SEGMENT_BYTES } from './mirror/segment.js';
export {
  COMPACT_MIN_SEGMENTS,
  type MirrorErrorContext,
  type MirrorStatus,
} from './mirror/space-mirror.js';
export type { MirrorErrorListener, MirrorInput } from './mirror/space-mirrors.js';
export { unnamedFiles } from './named-files.js';
export { assertCollectionName, isCollectionName } from './names.js';
export {
  createNode,
  type FilesApi,
  type HeldSpaceInfo,
  MincaNode,
  type NodeConfig,
  type OpenSpacesOptions,
  type OpenSpacesStats,
  type RecordsApi,
  type ReusedInvite,
  type SpaceInfo,
  type SpaceStatus,
  type SpacesApi,
  type SpaceTicket,
  type WriterInfo,
} from './node.js';
export {
  type NodeCryptoModule,
  type NodeCryptoOptions,
  nodeCrypto,
  type WorkerThreadsModule,
} from './node-crypto.js';
export { open as openSealed, randomKey, SEAL_OVERHEAD, seal } from './seal.js';
export { sealedStores } from './sealed-stores.js';
export { HOLDER_COLLECTION, type HolderKind } from './space/holders.js';
export type { InviteReuse, Role } from './space/membership.js';
export type { ListOptions, MincaRecord } from './space/record-reads.js';
export type { SpaceChange } from './space/space-view.js';
export { DEFAULT_BODY_CACHE, Store, type StoreChange, versionIndexKey } from './store.js';
export * from './store-io.js';
export { accessProofBytes } from './sync/handshake.js';
export { createMemoryTransportPair, type MemoryTransportOptions } from './sync/memory-transport.js';
export { createMessagePortTransport, type MessagePortLike } from './sync/message-port-transport.js';
export type { Peer, PeerSpaceStatus } from './sync/peer.js';
export type { Transport } from './sync/transport.js';
export {
  createWebSocketTransport,
  type Failover,
  type FailoverOptions,
  keepConnected,
  keepConnectedToAny,
  type ReconnectOptions,
  WEBSOCKET_DEFLATE,
  type WebSocketLike,
} from './sync/websocket-transport.js';
export {
  createVersion,
  createVersions,
  decodeVersion,
  MAX_BATCH,
  MAX_FILES,
  openBody,
  type SignOptions,
  type Version,
  type VersionDraft,
  verifyVersion,
} from './version.js';
