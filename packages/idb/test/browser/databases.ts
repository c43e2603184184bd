/** Deletes every database of the origin under `prefix`, so cases leave nothing behind. */
export async function deleteDatabases(prefix: string): Promise<void> {
  for (const { name } of await indexedDB.databases()) {
    if (!name?.startsWith(`${prefix}:`)) continue;
    await new Promise<void>((resolve, reject) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = () => resolve();
      request.onerror = () => reject(request.error);
      request.onblocked = () =>
        reject(new Error(`deleting ${name} is blocked: a store is still open`));
    });
  }
}
