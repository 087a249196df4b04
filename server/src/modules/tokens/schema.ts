import { rateLimitProblem, TOKEN_NAME_MAX } from '@modelgate/shared';
import { z } from 'zod';
import { invalidAllowEntries, normaliseAllowList } from '../../infra/ip-allow.ts';
import { budgetInput } from '../budgets/fields.ts';

/** Booleans arrive as true/false from the console; scripts sometimes send 0/1. */
const flag = z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => v === true || v === 1);

const name = z
  .string()
  .trim()
  .min(1, 'token name is required')
  .max(TOKEN_NAME_MAX, `token name must be at most ${TOKEN_NAME_MAX} characters`);

const quota = z
  .number({ error: 'remain_quota must be a number' })
  .int('remain_quota must be an integer')
  .min(0, 'remain_quota cannot be negative')
  .max(Number.MAX_SAFE_INTEGER);

const expiredTime = z
  .number({ error: 'expired_time must be a number' })
  .int('expired_time must be a whole number of seconds')
  .refine(
    (v) => v === -1 || v > Date.now() / 1000,
    'expired_time must be -1 (never) or a time in the future',
  );

/** A comma list (or array) of model names: trimmed, blanks dropped, duplicates removed. */
const modelList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => [...new Set((Array.isArray(v) ? v : v.split(',')).map((m) => m.trim()).filter(Boolean))])
  .refine((list) => list.every((m) => m.length <= 191), 'model names must be at most 191 characters')
  .transform((list) => list.join(','))
  .refine((s) => s.length <= 8192, 'model_limits is too long');

const allowIps = z
  .string()
  .max(8192, 'allow_ips is too long')
  .superRefine((text, c) => {
    const bad = invalidAllowEntries(text);
    if (bad.length)
      c.addIssue({
        code: 'custom',
        message: `not an IP address or CIDR range: ${bad.slice(0, 3).join(', ')}`,
      });
  })
  .transform(normaliseAllowList);

const group = z.string().trim().max(64, 'group name is too long');

/** Requests or tokens per minute: a whole number, 0 = no limit. */
const perMinute = (name: string) =>
  z.number({ error: `${name} must be a whole number` }).superRefine((v, c) => {
    const problem = rateLimitProblem(name, v);
    if (problem) c.addIssue({ code: 'custom', message: problem });
  });

export const createTokenSchema = z.object({
  name,
  // A new token's default quota.
  remain_quota: quota.default(500_000),
  unlimited_quota: flag.default(false),
  expired_time: expiredTime.default(-1),
  model_limits_enabled: flag.default(false),
  model_limits: modelList.default(''),
  allow_ips: allowIps.default(''),
  group: group.default(''),
  rpm_limit: perMinute('rpm_limit').default(0),
  tpm_limit: perMinute('tpm_limit').default(0),
  response_cache: flag.default(false),
  ...budgetInput,
  count: z
    .number()
    .int('count must be a whole number')
    .min(1, 'count must be at least 1')
    .max(100, 'count must be at most 100')
    .default(1),
});

const id = z.number({ error: 'id is required' }).int().positive('id is required');
const status = z.union([z.literal(1), z.literal(2)], { error: 'status must be 1 (enabled) or 2 (disabled)' });

export const updateTokenSchema = z.object({
  id,
  status: status.optional(),
  // Batch-made tokens carry a 7-character suffix past the 50 allowed on input; an unchanged name is kept as it is.
  name: z
    .string()
    .trim()
    .min(1, 'token name is required')
    .max(64, 'token name must be at most 50 characters')
    .optional(),
  remain_quota: quota.optional(),
  unlimited_quota: flag.optional(),
  // An unchanged past expiry is accepted so an expired token can still be renamed; the service checks changes.
  expired_time: z
    .number({ error: 'expired_time must be a number' })
    .int('expired_time must be a whole number of seconds')
    .min(-1)
    .optional(),
  model_limits_enabled: flag.optional(),
  model_limits: modelList.optional(),
  allow_ips: allowIps.optional(),
  group: group.optional(),
  rpm_limit: perMinute('rpm_limit').optional(),
  tpm_limit: perMinute('tpm_limit').optional(),
  response_cache: flag.optional(),
  ...budgetInput,
});

export const statusOnlySchema = z.object({ id, status });

export type CreateTokenInput = z.infer<typeof createTokenSchema>;
export type UpdateTokenInput = z.infer<typeof updateTokenSchema>;
