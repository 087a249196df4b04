/** Types for scripts/runtime-deps.mjs, imported by the tests. */
export function runtimePackagePaths(lockFile?: string): string[];
export function copyRuntimePackages(dir: string): string[];
