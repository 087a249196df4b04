import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs } from './support/console-client.ts';
import { startServer, type TestServer } from './support/server.ts';

describe('public content: notice, about, home page', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('serves what the admin saved, to anyone', async () => {
    const admin = await loginAs(server, { username: 'root1', role: Role.Root });
    for (const [key, path] of [
      ['Notice', '/api/notice'],
      ['About', '/api/about'],
      ['HomePageContent', '/api/home_page_content'],
    ]) {
      const empty = await fetch(server.url + path).then((r) => r.json());
      expect(empty).toEqual({ success: true, message: '', data: '' });
      const saved = await admin.put('/api/option/', { key, value: `# ${key}\n\nhello <b>world</b>` });
      expect(saved.success).toBe(true);
      const body = (await fetch(server.url + path).then((r) => r.json())) as { data: string };
      expect(body.data).toBe(`# ${key}\n\nhello <b>world</b>`);
    }
  });
});
