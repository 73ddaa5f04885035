import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../support/context.js';
import { testApp } from '../../support/app.js';

// The HTML pages the API serves (the storefront at /, the API docs at /docs) and their assets say
// what a browser may load for them; the docs serve only the files their page needs.

let ctx: TestContext;
let app: Express;

beforeAll(async () => {
  ctx = await createTestContext();
  app = testApp(ctx);
}, 120_000);

afterAll(async () => {
  await ctx?.close();
});

const directives = (csp: string | undefined) => new Map((csp ?? '').split(/;\s*/).map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));

describe('Content-Security-Policy of the served pages', () => {
  it("the storefront's images come from HTTPS sources only, never any host", async () => {
    const res = await request(app).get('/');
    expect(res.status).toBe(200);
    const img = directives(res.headers['content-security-policy']).get('img-src');
    expect(img).toEqual(["'self'", 'data:', 'https:']);
    expect(img).not.toContain('*');
  });

  it('/docs and its assets carry a policy: scripts from this origin only, nothing inline, no framing', async () => {
    for (const path of ['/docs', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/assets/start.js']) {
      const res = await request(app).get(path);
      expect(res.status, path).toBe(200);
      const csp = directives(res.headers['content-security-policy']);
      expect(csp.get('default-src'), path).toEqual(["'none'"]);
      expect(csp.get('script-src'), path).toEqual(["'self'"]);
      expect(csp.get('connect-src'), path).toEqual(["'self'"]);
      expect(csp.get('frame-ancestors'), path).toEqual(["'none'"]);
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
    }
    const page = await request(app).get('/docs');
    // The page's start-up is a file of this origin, not an inline script the policy would block.
    expect(page.text).not.toMatch(/<script>(?!<\/script>)/);
    expect((await request(app).get('/docs/assets/start.js')).text).toContain("url: '/openapi.json'");
  });

  it("swagger-ui-dist's demo page, OAuth redirect page and other files are not served", async () => {
    for (const path of [
      '/docs/assets/index.html',
      '/docs/assets/',
      '/docs/assets/oauth2-redirect.html',
      '/docs/assets/swagger-initializer.js',
      '/docs/assets/package.json',
      '/docs/assets/swagger-ui-bundle.js.map',
      '/docs/assets/../package.json',
      '/docs/assets/%2e%2e/package.json',
    ]) {
      const res = await request(app).get(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toMatchObject({ success: false, error: { code: expect.any(String) } });
    }
  });
});
