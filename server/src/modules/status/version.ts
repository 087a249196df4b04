import pkg from '../../../package.json' with { type: 'json' };

/** The server's version (server/package.json) and when this process started (unix seconds). */
export const VERSION: string = pkg.version ? `v${pkg.version}` : 'unknown';

export const START_TIME = Math.floor(Date.now() / 1000);
