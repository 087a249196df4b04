import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nothing listens on right now, for a server started in another process. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Waits until a spawned gateway answers /api/status; throws with its output when it exits or never does. */
export async function waitForGateway(url: string, proc: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if (
      await fetch(`${url}/api/status`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (proc.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the server did not start:\n${output()}`);
}
