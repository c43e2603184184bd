/// <reference lib="dom" />
/**
 * Raw IndexedDB transactions with one promise each, not one per request: a store's reads and
 * writes come in thousands of requests, and a promise with listeners per request measurably
 * slowed them (bench `idb`). Nothing but the transaction's own requests is awaited inside it, so
 * it never commits early.
 */

/** Why a transaction failed: its own error, or the abort itself. */
function failure(tx: IDBTransaction): unknown {
  return tx.error ?? new DOMException('the transaction was aborted', 'AbortError');
}

/**
 * Queues a read's requests with `queue`, which returns them; resolves with their results, in
 * order, once the last one succeeded (requests of one transaction complete in order, so every
 * earlier one has too). Rejects with the first failure.
 */
export function read(
  tx: IDBTransaction,
  queue: (tx: IDBTransaction) => IDBRequest[],
): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    tx.onabort = () => reject(failure(tx));
    const requests = queue(tx);
    const results: unknown[] = new Array(requests.length);
    if (requests.length === 0) resolve(results);
    requests.forEach((request, i) => {
      request.onerror = () => reject(request.error);
      request.onsuccess =
        i === requests.length - 1
          ? () => {
              results[i] = request.result;
              resolve(results);
            }
          : () => {
              results[i] = request.result;
            };
    });
  });
}

/**
 * Queues a write's requests with `queue` and resolves once the transaction committed; rejects
 * when it aborts (a failed request aborts it, with that request's error). When queuing throws
 * (a value that can't be cloned, a closed connection), the transaction is aborted, so what was
 * queued before does not land alone, and the error is thrown.
 */
export function write(tx: IDBTransaction, queue: (tx: IDBTransaction) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(failure(tx));
    try {
      queue(tx);
    } catch (error) {
      tx.onabort = null;
      try {
        tx.abort();
      } catch {
        // Already finished or aborting: either way nothing queued here commits.
      }
      reject(error);
    }
  });
}
