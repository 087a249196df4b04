import type { Selectable } from 'kysely';
import type { ChannelsTable } from '../../db/schema.ts';
import { type ChannelEntry, toEntry } from '../../relay/table-cache/channels.ts';

/** A channel as the console's side calls (model lists, balances) see it, before it is saved or from its row. */
export interface UpstreamTarget {
  type: number;
  baseUrl: string;
  key: string;
  organization?: string;
  other?: string;
  /** The channel's setting JSON (region, API version...). */
  setting?: string;
}

/** A target as the channel entry a provider adapter reads. */
export function entryOf(t: UpstreamTarget): ChannelEntry {
  return toEntry({
    id: 0,
    type: t.type,
    name: '',
    key: t.key,
    base_url: t.baseUrl,
    other: t.other ?? '',
    openai_organization: t.organization ?? '',
    setting: t.setting ?? '',
    status: 1,
    priority: 0,
    weight: 1,
    auto_ban: 0,
    models: '',
    group: '',
    model_mapping: null,
    status_code_mapping: null,
    param_override: null,
    test_model: null,
  } as unknown as Selectable<ChannelsTable>);
}

/** The first key of a channel (batch-created channels hold one; older multi-line keys use the first line). */
export const firstKey = (key: string) => key.split(/\r?\n/)[0]?.trim() ?? '';
