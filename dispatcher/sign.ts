import { createHmac } from 'node:crypto';

// Standard Webhooks (DECISIONS.md "Events"): HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed
// with the base64-decoded part of the secret after `whsec_`; header value `v1,<base64>`.

export function signingKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  // An empty key would sign with nothing at all (the reference verifier's own check misses
  // some forms of it): refuse rather than send a signature anyone can forge.
  if (key.length === 0) throw new Error('webhook secret decodes to an empty key');
  return key;
}

export function sign(key: Buffer, id: string, timestamp: number, body: Buffer): string {
  const mac = createHmac('sha256', key);
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** The envelope bytes: the stored data text spliced in as is, so every attempt sends the same bytes. */
export function envelope(e: { eventId: string; type: string; apiVersion: string; createdAt: Date; data: string }): Buffer {
  return Buffer.from(
    `{"id":${JSON.stringify(e.eventId)},"type":${JSON.stringify(e.type)},"api_version":${JSON.stringify(e.apiVersion)},` +
      `"created_at":${JSON.stringify(e.createdAt.toISOString())},"data":${e.data}}`,
    'utf8',
  );
}
