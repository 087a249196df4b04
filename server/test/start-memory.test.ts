import { describe, expect, it } from 'vitest';
import { describeProcesses, measureStartMemory, summary } from '../../bench/start-memory.ts';

/**
 * `npm start` under relay load: npm and the server are the group's only node processes, and every request is
 * answered. The memory figures are printed; their target (150 MB for the group) is checked by `npm run bench`,
 * not here, where other tests share the machine. Requests: OpenAI and Anthropic, plain and streamed, the
 * converted pair too, at 16 connections against a local mock upstream.
 */
describe('npm start under load', () => {
  it('stays one server process besides npm and answers every request', async () => {
    // Enough load for the process picture at the peak; the 2,000-request run with its memory target is the bench's.
    // (500 of each kind took three minutes on a machine shared with other test runs and hit the time limit.)
    const r = await measureStartMemory({ requests: 150, connections: [16] });
    console.log(`${summary(r)}\n${describeProcesses(r.atPeak)}`);
    expect(r.errors).toBe(0);
    expect(r.requests).toBe(150 * 6);
    for (const procs of [r.atStart, r.atPeak]) {
      const node = procs.filter((p) => p.exe === 'node');
      expect(node).toHaveLength(2);
      expect(node.some((p) => p.cmdline.startsWith('npm start'))).toBe(true);
      expect(node.some((p) => p.cmdline.includes('scripts/start.mjs'))).toBe(true);
    }
  }, 180_000);
});
