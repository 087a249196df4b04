import type { Db } from '../../db/index.ts';
import { auditHash, GENESIS_HASH } from './chain.ts';

export interface VerifyResult {
  ok: boolean;
  /** Rows read. */
  checked: number;
  /** The first seq kept (retention removes the oldest rows; the chain is checked from there). */
  firstSeq: number;
  lastSeq: number;
  problems: Array<{ seq: number; reason: string }>;
}

const PAGE = 1000;

/**
 * Walks the chain in seq order: each row's hash must match its content, each row must name the previous row's
 * hash, and the seqs must follow one another. The first row kept links to the genesis hash when it is seq 1;
 * after retention it is taken as the anchor.
 */
export async function verifyAudit(handle: Db, maxProblems = 20): Promise<VerifyResult> {
  const result: VerifyResult = { ok: true, checked: 0, firstSeq: 0, lastSeq: 0, problems: [] };
  const problem = (seq: number, reason: string) => {
    result.ok = false;
    if (result.problems.length < maxProblems) result.problems.push({ seq, reason });
  };
  let prev: { seq: number; hash: string } | undefined;
  for (;;) {
    let q = handle.db.selectFrom('audit_logs').selectAll().orderBy('seq').limit(PAGE);
    if (prev) q = q.where('seq', '>', prev.seq);
    const rows = await q.execute();
    for (const row of rows) {
      const seq = Number(row.seq);
      if (!prev) {
        result.firstSeq = seq;
        if (seq === 1 && row.prev_hash !== GENESIS_HASH)
          problem(seq, 'the first row does not start the chain');
      } else {
        if (seq !== prev.seq + 1) problem(seq, `rows ${prev.seq + 1} to ${seq - 1} are missing`);
        if (row.prev_hash !== prev.hash)
          problem(seq, `does not link to row ${prev.seq} (edited or replaced)`);
      }
      if (auditHash(row) !== row.hash) problem(seq, 'its content does not match its hash (edited)');
      prev = { seq, hash: row.hash };
      result.lastSeq = seq;
      result.checked++;
    }
    if (rows.length < PAGE) break;
  }
  return result;
}
