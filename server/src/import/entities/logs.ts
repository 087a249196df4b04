import { LogType } from '@modelgate/shared';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { insertLogs, type LogRow } from '../../ledger/log-insert.ts';
import { commitRows, errorText, hasColumn, type ImportJob, sourceBatches } from '../job.ts';
import { fit, flag, int, str } from '../values.ts';

const ENTITY = 'logs';

/**
 * Usage logs (with --logs) are appended in id order, batch by batch, into the log database. They get ids of
 * their own here (this gateway's own log rows may already use the source's), so a mark in `import_marks`,
 * moved in the same transaction as each batch, says how far this source has been copied: a second run
 * continues after it and never copies a row twice.
 */
export async function importLogs(job: ImportJob): Promise<void> {
  if (!job.tables.has('logs')) return;
  const e = job.report.entity(ENTITY);
  const target = job.ctx.logDb;
  const mark = await readMark(target.db, job.sourceId);
  if (mark > 0) e.note(`continued after source log ${mark}, copied by an earlier run`);
  for await (const batch of sourceBatches(job, 'logs', mark)) {
    e.read += batch.length;
    const rows = batch.map((r) => toRow(job, r));
    const lastId = int(batch[batch.length - 1].id);
    if (job.dryRun) {
      e.imported += rows.length;
      continue;
    }
    const written = await commitRows<LogRow[], Kysely<Database>>(
      [rows],
      (fn) => target.db.transaction().execute(fn),
      async (trx, chunk) => {
        await insertLogs(target, trx, chunk);
        await saveMark(job, trx, lastId);
      },
      (_, err) => e.skip(`${int(batch[0].id)}-${lastId}`, `batch could not be written: ${errorText(err)}`),
    );
    if (!written.length) return;
    e.imported += rows.length;
  }
}

function toRow(job: ImportJob, r: Record<string, unknown>): LogRow {
  const e = job.report.entity(ENTITY);
  let type = int(r.type);
  // one-api's type 5 is a channel test; here 5 is an error. Types this gateway lacks become system rows.
  const known = job.flavor === 'one-api' ? type >= 1 && type <= 4 : type >= 1 && type <= 5;
  if (!known) {
    e.note(`${job.flavor} log type ${type} has no equivalent: imported as a system log`);
    type = LogType.System;
  }
  // one-api measures the time in milliseconds (elapsed_time), new-api in seconds (use_time).
  const useTime = hasColumn(job, 'logs', 'use_time')
    ? int(r.use_time)
    : Math.round(int(r.elapsed_time) / 1000);
  return {
    user_id: int(r.user_id),
    created_at: int(r.created_at),
    type,
    content: str(r.content),
    username: fit(r.username, 64),
    token_name: fit(r.token_name, 128),
    token_id: int(r.token_id),
    model_name: fit(r.model_name, 191),
    quota: int(r.quota),
    // new-api and one-api record no upstream cost: unknown, kept as 0.
    cost: 0,
    prompt_tokens: int(r.prompt_tokens),
    completion_tokens: int(r.completion_tokens),
    use_time: useTime,
    first_time: 0,
    is_stream: flag(r.is_stream),
    channel_id: int(r.channel_id),
    group: fit(r.group, 64),
    ip: fit(r.ip, 64),
    request_id: fit(r.request_id, 64),
    other: str(r.other),
  };
}

async function readMark(db: Kysely<Database>, source: string): Promise<number> {
  const row = await db
    .selectFrom('import_marks')
    .select('last_id')
    .where('source', '=', source)
    .where('entity', '=', ENTITY)
    .executeTakeFirst();
  return row ? Number(row.last_id) : 0;
}

async function saveMark(job: ImportJob, trx: Kysely<Database>, lastId: number): Promise<void> {
  const values = {
    source: job.sourceId,
    entity: ENTITY,
    last_id: lastId,
    updated_at: Math.floor(Date.now() / 1000),
  };
  const set = { last_id: lastId, updated_at: values.updated_at };
  const insert = trx.insertInto('import_marks').values(values);
  if (job.ctx.logDb.dialect === 'mysql') await insert.onDuplicateKeyUpdate(set).execute();
  else await insert.onConflict((oc) => oc.columns(['source', 'entity']).doUpdateSet(set)).execute();
}
