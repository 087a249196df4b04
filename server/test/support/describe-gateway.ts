import { afterAll, beforeAll } from 'vitest';
import type { startServer, TestServer } from './server.ts';

/**
 * A gateway and what it talks to, for one describe block: a subclass's `setUp` runs in the block's beforeAll
 * (the fields it sets there are what the tests read), and the block's afterAll closes the gateway, then the
 * upstreams `setUp` started through `upstream`. The test file passes `startServer` in, so that the file says
 * it starts a gateway (scripts/test-tiers.mjs places it by that).
 */
export abstract class DescribeGateway {
  server!: TestServer;
  private readonly stops: Array<() => Promise<unknown>> = [];

  constructor(start: typeof startServer) {
    beforeAll(() => this.setUp(start));
    afterAll(async () => {
      await this.server?.close();
      for (const stop of this.stops) await stop();
    });
  }

  protected abstract setUp(start: typeof startServer): Promise<void>;

  /** Waits for an upstream (a mock, a proxy) and has the afterAll stop it once the gateway is closed. */
  protected async upstream<T extends { close(): Promise<unknown> }>(started: Promise<T>): Promise<T> {
    const up = await started;
    this.stops.push(() => up.close());
    return up;
  }
}
