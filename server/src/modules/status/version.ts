import { readFileSync } from 'node:fs';

/** The server's version (server/package.json) and when this process started (unix seconds). */
export const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ? `v${pkg.version}` : 'unknown';
  } catch {
    return 'unknown';
  }
})();

export const START_TIME = Math.floor(Date.now() / 1000);
