import { describe, expect, it } from 'vitest';
import express from 'express';
import request from 'supertest';
import { errorHandler } from '../../../../src/api/middleware/errors.js';

// A PostgreSQL date/time error that slipped past the edge checks is the client's 400.
describe('errorHandler', () => {
  it('turns PostgreSQL date/time errors into 400 INVALID_REQUEST and anything else into 500', async () => {
    const app = express();
    app.get('/range', () => {
      throw Object.assign(new Error('date/time field value out of range'), { code: '22008' });
    });
    app.get('/format', () => {
      throw Object.assign(new Error('invalid input syntax for type timestamp'), { code: '22007' });
    });
    app.get('/other', () => {
      throw Object.assign(new Error('boom'), { code: '42P01' });
    });
    app.use(errorHandler);
    for (const path of ['/range', '/format']) {
      const res = await request(app).get(path);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' } });
      expect(JSON.stringify(res.body)).not.toMatch(/field value/);
    }
    expect((await request(app).get('/other')).status).toBe(500);
  });
});
