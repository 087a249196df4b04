/** Types for scripts/server-runtime.mjs, imported by the TypeScript benchmark and tests. */
export const SERVER_NODE_FLAGS: string[];
export const SERVER_ENV: Record<string, string>;
export const EXTERNAL_PACKAGES: string[];
/** `plugins`: esbuild plugins (the CPU bench swaps a module with one). */
export function buildServer(entry?: string, outfile?: string, plugins?: unknown[]): Promise<string>;
