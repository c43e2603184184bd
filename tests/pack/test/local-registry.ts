/**
 * A registry for the `@minca` scope only, on 127.0.0.1, serving packed tarballs as a registry
 * serves published packages: the packument (`GET /@minca%2fcore`) and the tarball. npm is
 * pointed at it for `@minca/*` alone (`@minca:registry`); every other package comes from the
 * usual registry. It takes no uploads.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  /** The manifest of each package served, by name, as packed. */
  manifests: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startRegistry(tarballs: readonly string[]): Promise<LocalRegistry> {
  const packages = new Map<
    string,
    { manifest: Record<string, unknown>; file: string; bytes: Buffer }
  >();
  for (const file of tarballs) {
    const manifest = JSON.parse(
      execFileSync('tar', ['-xOzf', file, 'package/package.json'], { encoding: 'utf8' }),
    ) as Record<string, unknown>;
    packages.set(manifest.name as string, { manifest, file, bytes: readFileSync(file) });
  }
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname).slice(1);
    const tarball = /^(@minca\/[a-z0-9-]+)\/-\/([^/]+\.tgz)$/.exec(path);
    if (tarball) {
      const served = packages.get(tarball[1]!);
      if (served && basename(served.file) === tarball[2]) {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        return response.end(served.bytes);
      }
    }
    const served = packages.get(path);
    if (request.method === 'GET' && served) {
      const { manifest, file, bytes } = served;
      const version = manifest.version as string;
      const packument = {
        name: manifest.name,
        'dist-tags': { latest: version },
        versions: {
          [version]: {
            ...manifest,
            _id: `${manifest.name}@${version}`,
            dist: {
              tarball: `${url}${manifest.name}/-/${basename(file)}`,
              shasum: createHash('sha1').update(bytes).digest('hex'),
              integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
            },
          },
        },
      };
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify(packument));
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    manifests: new Map([...packages].map(([name, p]) => [name, p.manifest])),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
