/** Types for scripts/server-runtime.mjs, imported by the TypeScript benchmark and tests. */
export const SERVER_NODE_FLAGS: string[];
export const SERVER_ENV: Record<string, string>;
export const EXTERNAL_PACKAGES: string[];
export function buildServer(entry?: string, outfile?: string): Promise<string>;
