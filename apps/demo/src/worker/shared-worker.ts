/**
 * The SharedWorker all of a site's tabs share, one per account (its name): one node, so the
 * account's IndexedDB stores have one writer. Every tab's port hears every event.
 */
import type { EventMessage } from '../protocol.js';
import { NodeService } from './node-service.js';
import { servePort } from './serve-port.js';

interface ConnectEvent {
  ports: readonly MessagePort[];
}
const scope = globalThis as unknown as { onconnect: ((event: ConnectEvent) => void) | null };

const ports = new Set<MessagePort>();
const service = new NodeService((event: EventMessage) => {
  for (const port of ports) port.postMessage(event);
});

scope.onconnect = ({ ports: [port] }) => {
  if (!port) return;
  ports.add(port);
  servePort(port, service);
  // A tab that closes says so first (see node-client.ts), since ports don't.
  port.addEventListener('message', ({ data }) => {
    if ((data as { bye?: boolean } | null)?.bye) ports.delete(port);
  });
  port.start();
};
