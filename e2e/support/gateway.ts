import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from '../../server/test/support/server.ts';

export interface Gateway {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** The running server's context, to seed data the UI does not create. */
  ctx: TestServer['ctx'];
  stop(): Promise<void>;
}

const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * Starts the real gateway in this process on a random 127.0.0.1 port with a fresh SQLite database,
 * serving the built console from web/dist (build it first: `npm run build -w web`).
 */
export async function startGateway(env: Record<string, string> = {}): Promise<Gateway> {
  if (!existsSync(`${WEB_DIST}index.html`))
    throw new Error('web/dist is missing: run `npm run build -w web` first');
  const server = await startServer({
    env: {
      WEB_DIST,
      CRITICAL_RATE_LIMIT: '10000',
      GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
      GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
      ...env,
    },
  });
  return { url: server.url, ctx: server.ctx, stop: () => server.close() };
}
