import type { TestProject } from 'vitest/node';
import { launchBrowserServer } from './browser.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared chromium's endpoint (support/browser.ts connects to it). */
    chromiumWs: string;
  }
}

/**
 * One chromium for the whole browser run: launched once here, every test file connects to it and opens its
 * own context (own cookies and storage), instead of each file paying for a browser start.
 */
export default async function setup(project: TestProject) {
  const server = await launchBrowserServer();
  project.provide('chromiumWs', server.wsEndpoint());
  return async () => {
    await server.close();
  };
}
