import { CHANNEL_NAME_MAX, channelTypeInfo } from '@modelgate/shared';
import { z } from 'zod';
import { isProxyUrl } from '../../infra/proxy.ts';

/** Booleans from the console (true/false) or scripts (0/1) become 0/1. */
const flag01 = z
  .union([z.boolean(), z.literal(0), z.literal(1)])
  .transform((v) => (v === true || v === 1 ? 1 : 0));

/** A comma list (or array) of names: trimmed, blanks dropped, duplicates removed, kept as a list. */
export const nameList = (what: string, maxLen: number) =>
  z
    .union([z.string(), z.array(z.string())], { error: `${what} must be a comma-separated list` })
    .transform((v) => [
      ...new Set((Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean)),
    ])
    .refine(
      (list) => list.every((s) => s.length <= maxLen),
      `${what}: each name must be at most ${maxLen} characters`,
    );

/** Text that must be empty or a JSON object; objects sent as such are stored as their JSON text. */
export const jsonObjectText = (what: string) =>
  z
    .union([z.string(), z.record(z.string(), z.unknown())], { error: `${what} must be a JSON object` })
    .transform((v, c) => {
      const text = typeof v === 'string' ? v.trim() : JSON.stringify(v);
      if (text === '') return '';
      try {
        const parsed = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return text;
      } catch {
        /* reported below */
      }
      c.addIssue({ code: 'custom', message: `${what} must be valid JSON (an object)` });
      return z.NEVER;
    });

export const priority = z
  .number({ error: 'priority must be a number' })
  .int('priority must be an integer')
  .min(-999, 'priority must be at least -999')
  .max(Number.MAX_SAFE_INTEGER);
export const weight = z
  .number({ error: 'weight must be a number' })
  .int('weight must be an integer')
  .min(0, 'weight cannot be negative')
  .max(Number.MAX_SAFE_INTEGER);

const baseUrl = z
  .string()
  .trim()
  .max(512, 'base_url is too long')
  .transform((s) => s.replace(/\/+$/, ''))
  .refine((s) => s === '' || /^https?:\/\/[^\s/]+/i.test(s), 'base_url must start with http:// or https://');

const type = z
  .number({ error: 'type must be a channel type number' })
  .int()
  .refine((t) => !!channelTypeInfo(t), 'unknown channel type');

/** Fields a channel may carry; every one optional here (update), create adds its requirements. */
const fields = {
  type,
  name: z
    .string()
    .trim()
    .min(1, 'channel name is required')
    .max(CHANNEL_NAME_MAX, `channel name must be at most ${CHANNEL_NAME_MAX} characters`),
  key: z.string().max(65536, 'key is too long'),
  base_url: baseUrl,
  other: z.string().max(65536),
  openai_organization: z.string().trim().max(255),
  test_model: z.string().trim().max(191),
  models: nameList('models', 191).refine((l) => l.length > 0, 'at least one model is required'),
  group: nameList('groups', 64),
  groups: nameList('groups', 64),
  model_mapping: jsonObjectText('model_mapping'),
  status_code_mapping: jsonObjectText('status_code_mapping'),
  setting: jsonObjectText('setting').refine((text) => {
    const proxy = text ? JSON.parse(text).proxy : undefined;
    return proxy === undefined || proxy === '' || (typeof proxy === 'string' && isProxyUrl(proxy.trim()));
  }, 'setting.proxy must be an http://, https:// or socks5:// URL'),
  param_override: jsonObjectText('param_override'),
  priority,
  weight,
  tag: z.string().trim().max(191, 'tag must be at most 191 characters'),
  auto_ban: flag01,
  status: z.union([z.literal(1), z.literal(2)], { error: 'status must be 1 (enabled) or 2 (disabled)' }),
  max_input_tokens: z.number().int().min(0),
};

const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as {
    [K in keyof T]: z.ZodOptional<T[K]>;
  };

export const channelUpdateSchema = z.object({
  id: z.number({ error: 'id is required' }).int().positive('id is required'),
  ...optional(fields),
});

export const channelCreateSchema = z.object({
  ...optional(fields),
  type: type.default(1),
  name: fields.name.optional().default(''),
  key: fields.key.optional().default(''),
  models: nameList('models', 191).default([]),
  mode: z.enum(['single', 'batch', 'multi_key']).default('single'),
});

export type ChannelUpdateInput = z.infer<typeof channelUpdateSchema>;
export type ChannelCreateInput = z.infer<typeof channelCreateSchema>;

export const tagEditSchema = z.object({
  tag: z.string({ error: 'tag is required' }).trim().min(1, 'tag is required'),
  new_tag: z.string().trim().max(191).nullish(),
  model_mapping: z.string().nullish(),
  models: z.union([z.string(), z.array(z.string())]).nullish(),
  groups: z.union([z.string(), z.array(z.string())]).nullish(),
  priority: priority.nullish(),
  weight: weight.nullish(),
});

export const tagSchema = z.object({
  tag: z.string({ error: 'tag is required' }).trim().min(1, 'tag is required'),
});

export const idsSchema = z.object({
  ids: z
    .array(z.number().int().positive(), { error: 'ids must be a list of channel ids' })
    .min(1, 'select at least one channel')
    .max(10000),
});

export const batchTagSchema = idsSchema.extend({ tag: z.string().trim().max(191).nullish() });

export const fetchModelsSchema = z.object({
  type: type.default(1),
  base_url: baseUrl.optional().default(''),
  key: z.string({ error: 'key is required' }).trim().min(1, 'key is required'),
  other: z.string().max(4096).optional().default(''),
  setting: z.string().max(65536).optional().default(''),
});

/** POST /api/channel/:id/keys: one change to a multi-key channel's keys. */
export const keyEditSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('add'), keys: z.string().trim().min(1, 'keys are required').max(65536) }),
  z.object({
    action: z.literal('replace'),
    index: z.number().int().min(0),
    key: z.string().trim().min(1, 'key is required').max(65536),
  }),
  z.object({ action: z.literal('remove'), index: z.number().int().min(0) }),
  z.object({ action: z.literal('enable'), index: z.number().int().min(0) }),
  z.object({ action: z.literal('disable'), index: z.number().int().min(0) }),
]);
