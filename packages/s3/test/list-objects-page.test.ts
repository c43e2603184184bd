import { isMincaError } from '@minca/core';
import { describe, expect, it } from 'vitest';
import { parseListObjectsPage } from '../src/list-objects-page.ts';
import { parseXml } from '../src/xml.ts';
import { bytesOf, expectBytes, expectMincaError } from './helpers.ts';
import {
  ACCESS_KEY_ID,
  BUCKET,
  proxyForFile,
  SECRET_ACCESS_KEY,
  s3rverForFile,
} from './s3rver-server.ts';

const page = (inner: string, attrs = ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"') =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult${attrs}><Name>b</Name><Prefix>p/</Prefix>${inner}</ListBucketResult>`;
const entry = (key: string) =>
  `<Contents><Key>${key}</Key><LastModified>2026-12-02T00:00:00.000Z</LastModified><Size>1</Size></Contents>`;

function malformed(xml: string): boolean {
  try {
    parseListObjectsPage(xml, 'p/');
    return false;
  } catch (error) {
    return isMincaError(error, 'malformed');
  }
}

describe('parseListObjectsPage', () => {
  it('reads keys and the continuation token', () => {
    const xml = page(
      `<KeyCount>2</KeyCount><IsTruncated>true</IsTruncated>${entry('p/a')}${entry('p/b/c')}<NextContinuationToken>1ue+/x==</NextContinuationToken>`,
    );
    expect(parseListObjectsPage(xml, 'p/')).toEqual({
      keys: ['p/a', 'p/b/c'],
      nextContinuationToken: '1ue+/x==',
    });
    expect(parseListObjectsPage(page('<IsTruncated>false</IsTruncated>'), 'p/')).toEqual({
      keys: [],
      nextContinuationToken: undefined,
    });
  });

  it('decodes entities, numeric references and CDATA; skips comments and attributes', () => {
    const xml = page(
      `<!-- c --><IsTruncated>false</IsTruncated>${entry('p/a&amp;b&lt;&gt;&quot;&apos;')}${entry('p/&#65;&#x42;')}${entry('<![CDATA[p/<raw>&]]>')}<Contents a="x>y"><Key>p/z</Key></Contents>`,
    );
    expect(parseListObjectsPage(xml, 'p/').keys).toEqual([`p/a&b<>"'`, 'p/AB', 'p/<raw>&', 'p/z']);
  });

  it('takes namespace prefixes and url-encoded keys', () => {
    const xml =
      '<s3:ListBucketResult xmlns:s3="x"><s3:EncodingType>url</s3:EncodingType><s3:Contents><s3:Key>p/a%2Fb</s3:Key></s3:Contents><s3:IsTruncated>false</s3:IsTruncated></s3:ListBucketResult>';
    expect(parseListObjectsPage(xml, 'p/').keys).toEqual(['p/a/b']);
  });

  it('is malformed on broken or hostile XML', () => {
    for (const xml of [
      '',
      'not xml',
      '<html><body>502 Bad Gateway</body></html>',
      '<Error><Code>SlowDown</Code></Error>',
      page(entry('p/a')).slice(0, -5),
      page('<Contents><Key>p/a</Contents></Key>'),
      page(entry('p/a&unknown;')),
      page(entry('p/a & b')),
      page(entry('p/&#0;')),
      page(entry('p/&#xD800;')),
      `<!DOCTYPE x [<!ENTITY e "boom">]>${page(entry('p/&e;'))}`,
      `${page('')}<Second/>`,
      `${page('')}trailing`,
      page('<Contents><Size>1</Size></Contents>'),
      page(entry('q/outside')),
      page('<IsTruncated>yes</IsTruncated>'),
      page('<IsTruncated>true</IsTruncated>'),
      page('<IsTruncated>true</IsTruncated><NextContinuationToken></NextContinuationToken>'),
      '<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>p/%E0%A4%A</Key></Contents></ListBucketResult>',
      '<ListBucketResult attr="unterminated></ListBucketResult>',
      '<1bad/>',
    ]) {
      expect(malformed(xml), xml).toBe(true);
    }
  });

  it('parses a full page of 1000 long keys', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `p/${'x'.repeat(900)}/${i}`);
    const xml = page(`<IsTruncated>false</IsTruncated>${keys.map(entry).join('')}`);
    expect(parseListObjectsPage(xml, 'p/').keys).toEqual(keys);
    expect(parseXml('<a><b>1</b><b/></a>').children.map((c) => c.name)).toEqual(['b', 'b']);
  });
});

describe('a malformed listing from the server', () => {
  const s3 = s3rverForFile();
  const proxy = proxyForFile(s3);

  it('is MincaError(malformed), is not retried, and loses nothing stored', async () => {
    const blobs = s3.store({
      endpoint: proxy.endpoint,
      prefix: 'p',
      maxKeys: 1,
      sleep: async () => {},
    });
    await blobs.put('a', bytesOf(1, 10));
    await blobs.put('b', bytesOf(2, 10));
    for (const body of [
      'garbage',
      page('<IsTruncated>true</IsTruncated>'),
      '<ListBucketResult><Contents><Key>elsewhere/x</Key></Contents></ListBucketResult>',
    ]) {
      const from = proxy.requests.length;
      proxy.inject({ kind: 'replace', body });
      const error = await expectMincaError(blobs.list(''), 'malformed');
      expect(error.message).toMatch(/^S3 list of prefix "" got a malformed answer: /);
      expect(proxy.requests.length - from).toBe(1);
    }
    // Well-formed but for one byte that is not UTF-8.
    const notUtf8 = Buffer.from(page(`<IsTruncated>false</IsTruncated>${entry('p/aX')}`));
    notUtf8[notUtf8.indexOf('X')] = 0xff;
    proxy.inject({ kind: 'replace', body: notUtf8 });
    const notText = await expectMincaError(blobs.list(''), 'malformed');
    expect(notText.message).toContain('not UTF-8');

    // A server that hands the same continuation token back forever is caught, not followed.
    const loop = page(
      `<IsTruncated>true</IsTruncated>${entry('p/a')}<NextContinuationToken>same</NextContinuationToken>`,
    );
    proxy.inject({ kind: 'replace', body: loop }, { kind: 'replace', body: loop });
    const error = await expectMincaError(blobs.list(''), 'malformed');
    expect(error.message).toContain('continuation token came back twice');

    expect(await blobs.list('')).toEqual(['a', 'b']);
    expectBytes(await blobs.get('a'), bytesOf(1, 10));
    expectBytes(await blobs.get('b'), bytesOf(2, 10));
  });

  it('skips objects whose names are not blob keys', async () => {
    // Written past the store, straight to s3rver, by a raw signed request.
    const raw = s3.store();
    const { AwsClient } = await import('aws4fetch');
    const client = new AwsClient({
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: SECRET_ACCESS_KEY,
      region: 'auto',
      service: 's3',
    });
    const response = await fetch(
      await client.sign(`${s3.endpoint}/${BUCKET}/foreign/has%20space`, {
        method: 'PUT',
        body: 'x',
      }),
    );
    expect(response.status).toBe(200);
    await raw.put('foreign/ok', bytesOf(1, 1));
    expect(await raw.list('foreign/')).toEqual(['foreign/ok']);
  });
});
