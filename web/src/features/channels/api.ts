import type { ChannelCircuit } from '@modelgate/shared';
import { ApiFailure, api, requestEnvelope, withQuery } from '../../api/client.ts';

/** A channel as the server sends it: every column except the key, which never leaves the server. */
export interface Channel {
  id: number;
  type: number;
  name: string;
  status: number;
  base_url: string;
  other: string;
  openai_organization: string;
  test_model: string;
  models: string;
  group: string;
  model_mapping: string;
  status_code_mapping: string;
  setting: string;
  param_override: string;
  priority: number;
  weight: number;
  tag: string;
  auto_ban: number;
  response_time: number;
  test_time: number;
  balance: number;
  balance_updated_time: number;
  used_quota: number;
  other_info: string;
  created_time: number;
  max_input_tokens: number;
  /** A multi-key channel's keys: position, fingerprint and status (never the key). */
  keys?: ChannelKey[];
  /** In lists: how many keys the channel holds, and how many of them are enabled. */
  key_count?: number;
  keys_enabled?: number;
  /** Set while the channel's circuit breaker keeps it out of rotation (open) or probes it (half-open). */
  circuit?: ChannelCircuit;
}

export interface ChannelKey {
  index: number;
  fingerprint: string;
  /** `sk-…a1b2`, or a service account's e-mail: never the key. */
  label: string;
  status: number;
  reason: string;
  time: number;
}

export type KeyEdit =
  | { action: 'add'; keys: string }
  | { action: 'replace'; index: number; key: string }
  | { action: 'remove' | 'enable' | 'disable'; index: number };

export type ChannelInput = Partial<Omit<Channel, 'id' | 'models' | 'group'>> & {
  key?: string;
  models?: string;
  group?: string;
  mode?: 'single' | 'batch' | 'multi_key';
};

export interface ListParams {
  page: number;
  pageSize: number;
  idSort: boolean;
  tagMode: boolean;
}

export interface SearchParams {
  keyword: string;
  group: string;
  model: string;
}

export async function listChannels(p: ListParams): Promise<{ items: Channel[]; total: number }> {
  const env = (await requestEnvelope<Channel[]>(
    'GET',
    withQuery('/api/channel/', {
      p: p.page - 1,
      page_size: p.pageSize,
      id_sort: p.idSort,
      tag_mode: p.tagMode,
    }),
  )) as { success: boolean; message?: string; data?: Channel[]; total?: number };
  if (!env.success) throw new ApiFailure(env.message || 'request failed', 200);
  const items = env.data ?? [];
  return { items, total: env.total ?? items.length };
}

export const searchChannels = (s: SearchParams, idSort: boolean, tagMode: boolean) =>
  api.get<Channel[]>('/api/channel/search', { ...s, id_sort: idSort, tag_mode: tagMode });
export const getChannel = (id: number) => api.get<Channel>(`/api/channel/${id}`);
export const editChannelKeys = (id: number, edit: KeyEdit) =>
  api.post<ChannelKey[]>(`/api/channel/${id}/keys`, edit);
export const createChannel = (body: ChannelInput) => api.post<{ ids: number[] }>('/api/channel/', body);
export const updateChannel = (body: ChannelInput & { id: number }) => api.put<Channel>('/api/channel/', body);
export const deleteChannel = (id: number) => api.del<void>(`/api/channel/${id}/`);
export const copyChannel = (id: number, suffix: string) =>
  api.post<{ id: number }>(withQuery(`/api/channel/copy/${id}`, { suffix, reset_balance: true }));
export const deleteDisabled = () => api.del<number>('/api/channel/disabled');
export const deleteMany = (ids: number[]) => api.post<number>('/api/channel/batch', { ids });
export const setTagMany = (ids: number[], tag: string) =>
  api.post<number>('/api/channel/batch/tag', { ids, tag });
export const fixAbilities = () => api.post<number>('/api/channel/fix');
export const setTagStatus = (tag: string, enabled: boolean) =>
  api.post<number>(`/api/channel/tag/${enabled ? 'enabled' : 'disabled'}`, { tag });
export const editTag = (body: {
  tag: string;
  new_tag?: string;
  model_mapping?: string;
  models?: string;
  groups?: string;
  priority?: number;
  weight?: number;
}) => api.put<number>('/api/channel/tag', body);
export const testAll = () => api.get<void>('/api/channel/test');
export const updateAllBalances = () =>
  api.get<{ updated: number; failed: number }>('/api/channel/update_balance');
export const updateBalance = (id: number) => api.get<number>(`/api/channel/update_balance/${id}/`);
export const fetchModelsById = (id: number) => api.get<string[]>(`/api/channel/fetch_models/${id}`);
export const fetchModelsAdHoc = (body: { base_url: string; type: number; key: string }) =>
  api.post<string[]>('/api/channel/fetch_models', body);
export const knownModels = () => api.get<Array<{ id: string }>>('/api/channel/models');
export const modelsByType = () => api.get<Record<string, string[]>>('/api/models');
export const allGroups = () => api.get<string[]>('/api/group/');

export interface TestReply {
  success: boolean;
  message: string;
  time?: number;
}

/** A channel test answers `{success, message, time}`; a failed test is a result, not an exception. */
export async function testChannel(id: number, model?: string): Promise<TestReply> {
  const env = (await requestEnvelope<Channel>(
    'GET',
    withQuery(`/api/channel/test/${id}`, { model }),
  )) as TestReply;
  return { success: env.success, message: env.message ?? '', time: env.time };
}

/** Tests one key of a multi-key channel; answers with every key's status after the test. */
export async function testChannelKey(
  id: number,
  index: number,
): Promise<TestReply & { keys?: ChannelKey[] }> {
  const env = await requestEnvelope<{ keys: ChannelKey[] }>(
    'GET',
    withQuery(`/api/channel/test/${id}`, { key: index }),
  );
  const time = (env as { time?: number }).time;
  return { success: env.success, message: env.message ?? '', time, keys: env.data?.keys };
}
