import { optionDef } from '../../modules/options/registry.ts';
import { normaliseOption, writeOption } from '../../modules/options/store.ts';
import type { ImportJob } from '../job.ts';
import { isPrototypeKey, translateOption } from '../option-names.ts';
import { str } from '../values.ts';

/**
 * Options with the same key and meaning are copied after the same checks the console applies; renamed ones
 * (one-api's Oidc*, new-api's quota display type) are translated; the rest are listed by key, never by
 * value (some are secrets). Each option is written through the option store, so running gateways reload it.
 */
export async function importOptions(job: ImportJob): Promise<void> {
  const e = job.report.entity('options');
  const rows = (await job.src.db.selectFrom('options').selectAll().execute()) as Record<string, unknown>[];
  e.read = rows.length;
  const here = await job.db.selectFrom('options').select(['key', 'value']).execute();
  const stored = new Map(here.map((o) => [o.key, o.value]));
  for (const r of rows.sort((a, b) => (str(a.key) < str(b.key) ? -1 : 1))) {
    const key = str(r.key);
    const value = str(r.value);
    if (isPrototypeKey(key)) {
      e.skip(key, 'the name of an object prototype member is not an option');
      continue;
    }
    const translate = translateOption(job.flavor, key);
    const targets = translate
      ? translate(value)
      : optionDef(key)
        ? [[key, value] as [string, string]]
        : undefined;
    if (targets === undefined) {
      e.skip(key, 'no equivalent option here');
      continue;
    }
    if (typeof targets === 'string') {
      e.skip(key, targets);
      continue;
    }
    for (const [to, raw] of targets) {
      let canonical: string;
      try {
        canonical = normaliseOption(to, raw, optionDef(to));
      } catch (err) {
        e.skip(key, `value refused: ${(err as Error).message}`);
        continue;
      }
      if (stored.get(to) === canonical) {
        e.unchanged++;
        continue;
      }
      if (!job.dryRun) {
        await writeOption(job.db, job.ctx.db.dialect, to, canonical);
        // Once committed, the store takes the value (and tells every instance).
        job.afterCommit.push(() => job.ctx.options.set(to, canonical));
      }
      e.imported++;
      if (to !== key) e.note(`${key} became ${to}`);
    }
  }
}
