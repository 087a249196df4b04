import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of SQLITE_ONLY) {
  describe.skipIf(!engine.available)(`app shell on ${engine.name}`, () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer({ db: engine });
    });
    afterAll(() => server?.close());

    it('answers unknown /api paths with a 404 envelope and a request id', async () => {
      const res = await fetch(`${server.url}/api/does-not-exist`);
      expect(res.status).toBe(404);
      expect(res.headers.get('x-oneapi-request-id')).toMatch(/^\d{14}[0-9a-f]{8}$/);
      expect(await res.json()).toEqual({ success: false, message: 'Invalid URL (GET /api/does-not-exist)' });
    });

    it('answers unknown /v1 paths in OpenAI error shape', async () => {
      const res = await fetch(`${server.url}/v1/nothing-here`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { type: string } };
      expect(body.error.type).toBe('invalid_request_error');
    });

    it('refuses malformed JSON on /api with a 400 envelope', async () => {
      const res = await fetch(`${server.url}/api/anything`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ success: false, message: 'invalid JSON in request body' });
    });

    it('stores options with their types checked', async () => {
      await server.ctx.options.set('RetryTimes', '3');
      expect(server.ctx.options.int('RetryTimes')).toBe(3);
      await expect(server.ctx.options.set('RetryTimes', 'three')).rejects.toThrow(/integer/);
      await expect(server.ctx.options.set('ModelRatio', '{bad')).rejects.toThrow(/JSON/);
      expect(server.ctx.options.json('ModelRatio')).toEqual({});
    });
  });
}
