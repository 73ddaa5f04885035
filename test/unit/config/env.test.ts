import { describe, expect, it } from 'vitest';
import { DEV_CURSOR_SECRET, loadEnv } from '../../../src/config/env.js';

describe('loadEnv', () => {
  it('refuses production without a real CURSOR_SECRET', () => {
    expect(() => loadEnv({ NODE_ENV: 'production' })).toThrow(/CURSOR_SECRET/);
    expect(() => loadEnv({ NODE_ENV: 'production', CURSOR_SECRET: DEV_CURSOR_SECRET })).toThrow(/CURSOR_SECRET/);
    expect(() => loadEnv({ NODE_ENV: 'production', CURSOR_SECRET: 'short-but-16-chars' })).toThrow(/CURSOR_SECRET/);
    const secret = 'a'.repeat(64);
    expect(loadEnv({ NODE_ENV: 'production', CURSOR_SECRET: secret }).CURSOR_SECRET).toBe(secret);
    // Development and tests keep the default.
    expect(loadEnv({}).CURSOR_SECRET).toBe(DEV_CURSOR_SECRET);
  });
});
