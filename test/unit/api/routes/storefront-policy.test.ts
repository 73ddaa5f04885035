import { describe, expect, it } from 'vitest';
import { storefrontPolicy } from '../../../../src/api/routes/storefront.js';
import { loadEnv } from '../../../../src/config/env.js';

describe("the storefront page's image sources", () => {
  it('HTTPS only by default: no wildcard, no plain HTTP', () => {
    const sources = loadEnv({}).STOREFRONT_IMAGE_SOURCES;
    expect(sources).toEqual(['https:']);
    const imgSrc = storefrontPolicy(sources)
      .split('; ')
      .find((d) => d.startsWith('img-src'));
    expect(imgSrc).toBe("img-src 'self' data: https:");
  });

  it('an allowlist of hosts from STOREFRONT_IMAGE_SOURCES', () => {
    const sources = loadEnv({ STOREFRONT_IMAGE_SOURCES: 'https://img.example  https://*.cdn.example:8443' }).STOREFRONT_IMAGE_SOURCES;
    expect(storefrontPolicy(sources)).toContain("img-src 'self' data: https://img.example https://*.cdn.example:8443;");
  });

  it('refuses sources that would let catalog data choose any host', () => {
    for (const bad of ['*', 'http:', 'https: *', 'http://img.example', "'unsafe-inline'", 'https://img.example/path; script-src *', '']) {
      expect(() => loadEnv({ STOREFRONT_IMAGE_SOURCES: bad }), bad).toThrow(/STOREFRONT_IMAGE_SOURCES/);
    }
  });
});
