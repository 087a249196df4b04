import type { ImportJob } from '../job.ts';
import { str } from '../values.ts';

/**
 * Abilities are the routing index, derived from each channel's models and groups; this gateway writes them
 * with the channel (entities/channels.ts). Here the source's own rows are checked against what was written:
 * a row that matches is counted as moved (or as already here when its channel was), one that names a channel
 * not imported or a (group, model) its channel no longer lists (a stale row in the old database) is skipped.
 */
export async function importAbilities(job: ImportJob): Promise<void> {
  if (!job.tables.has('abilities')) return;
  const e = job.report.entity('abilities');
  for await (const batch of abilityBatches(job)) {
    e.read += batch.length;
    for (const r of batch) {
      const channelId = Number(r.channel_id);
      const pair = `${str(r.group).trim()}\n${str(r.model).trim()}`;
      const label = `${str(r.group)}/${str(r.model)}@${channelId}`;
      const channel = job.channels.get(channelId);
      if (!channel) e.skip(label, `channel ${channelId} was not imported`);
      else if (!channel.pairs.has(pair))
        e.skip(label, `channel ${channelId} no longer lists this group and model`);
      else if (channel.fresh) e.imported++;
      else e.unchanged++;
    }
  }
}

/** The source's abilities (no id column) in pages; the source is not written during an import, so offsets hold. */
async function* abilityBatches(job: ImportJob): AsyncGenerator<Record<string, unknown>[]> {
  for (let offset = 0; ; offset += job.batchSize) {
    const rows = (await job.src.db
      .selectFrom('abilities')
      .selectAll()
      .orderBy('channel_id')
      .orderBy('group')
      .orderBy('model')
      .limit(job.batchSize)
      .offset(offset)
      .execute()) as Record<string, unknown>[];
    if (rows.length) yield rows;
    if (rows.length < job.batchSize) return;
  }
}
