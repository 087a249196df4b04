import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** True when web/dist has an index.html whose referenced assets all exist (not mid-build). */
function distComplete(): boolean {
  if (!existsSync(`${WEB_DIST}index.html`)) return false;
  const html = readFileSync(`${WEB_DIST}index.html`, 'utf8');
  const assets = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]);
  return assets.every((a) => existsSync(`${WEB_DIST}${a}`));
}

/**
 * A private copy of the built console, so that someone rebuilding web/dist (which empties it first) while
 * a browser test runs cannot pull the files from under the server.
 */
async function snapshotDist(): Promise<string> {
  for (let attempt = 0; attempt < 30 && !distComplete(); attempt++)
    await new Promise((r) => setTimeout(r, 1000));
  if (!distComplete()) throw new Error('web/dist is missing or incomplete: run `npm run build -w web` first');
  const dir = mkdtempSync(join(tmpdir(), 'gw-web-'));
  cpSync(WEB_DIST, dir, { recursive: true });
  return `${dir}/`;
}

/**
 * Starts the real gateway in this process on a random 127.0.0.1 port with a fresh SQLite database,
 * serving a snapshot of the built console from web/dist (build it first: `npm run build -w web`).
 */
export async function startGateway(env: Record<string, string> = {}): Promise<Gateway> {
  const webDist = await snapshotDist();
  const server = await startServer({
    env: {
      WEB_DIST: webDist,
      CRITICAL_RATE_LIMIT: '10000',
      GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
      GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
      ...env,
    },
  });
  return {
    url: server.url,
    ctx: server.ctx,
    async stop() {
      await server.close();
      rmSync(webDist, { recursive: true, force: true });
    },
  };
}
