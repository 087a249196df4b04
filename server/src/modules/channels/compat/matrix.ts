import type { WireFormat } from '../../../relay/formats/hub.ts';
import { type CellResult, SCRIPTS, type ScriptId } from './scripts.ts';

/** The client formats, in the matrix's column order. */
export const CLIENT_FORMATS: WireFormat[] = ['openai', 'responses', 'anthropic', 'gemini'];

/** Results of one run: script -> client format -> verdict. */
export type Matrix = Record<ScriptId, Record<WireFormat, CellResult>>;

export function tally(m: Matrix): { passed: number; failed: number } {
  let passed = 0;
  let failed = 0;
  for (const s of SCRIPTS)
    for (const f of CLIENT_FORMATS) {
      if (m[s]?.[f]?.verdict === 'pass') passed++;
      else if (m[s]?.[f]?.verdict === 'fail') failed++;
    }
  return { passed, failed };
}

/** A cell whose verdict went from pass to fail or back between two runs. */
export interface CellChange {
  script: ScriptId;
  format: WireFormat;
  from: 'pass' | 'fail';
  to: 'pass' | 'fail';
  reason: string;
}

/** Cells that changed between pass and fail (a skip on either side is no change). */
export function changesBetween(before: Matrix, after: Matrix): CellChange[] {
  const out: CellChange[] = [];
  for (const script of SCRIPTS)
    for (const format of CLIENT_FORMATS) {
      const a = before[script]?.[format]?.verdict;
      const b = after[script]?.[format];
      if (
        (a === 'pass' || a === 'fail') &&
        (b?.verdict === 'pass' || b?.verdict === 'fail') &&
        a !== b.verdict
      )
        out.push({ script, format, from: a, to: b.verdict, reason: b.reason });
    }
  return out;
}
