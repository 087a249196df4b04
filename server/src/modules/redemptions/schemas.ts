import { z } from 'zod';
import { ApiError } from '../../infra/envelope.ts';

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

/** `?p&page_size` as every paged console list reads it: pages from 1, sizes 1..100 (default 10). */
export const pageQuery = z.object({
  p: z.preprocess(blank, z.coerce.number().int().max(10_000_000).optional()),
  page_size: z.preprocess(blank, z.coerce.number().int().min(1).max(100).optional()),
  keyword: z.preprocess(blank, z.string().max(100).optional()),
});

export const paging = (q: z.infer<typeof pageQuery>) => ({
  page: Math.max(1, q.p ?? 1),
  pageSize: q.page_size ?? 10,
});

const quota = z
  .number({ error: '额度必须是大于 0 的整数' })
  .int('额度必须是大于 0 的整数')
  .positive('额度必须是大于 0 的整数')
  .max(Number.MAX_SAFE_INTEGER);
const name = z.string({ error: '兑换码名称必须是文本' }).trim();

export const createSchema = z.object({
  name: name.optional(),
  quota,
  count: z
    .number({ error: '兑换码个数必须是整数' })
    .int('兑换码个数必须是整数')
    .min(1, '兑换码个数必须大于0')
    .max(100, '一次兑换码批量生成的个数不能大于 100')
    .default(1),
});

const id = z
  .number({ error: '无效的兑换码 ID' })
  .int('无效的兑换码 ID')
  .positive('无效的兑换码 ID')
  .max(Number.MAX_SAFE_INTEGER, '无效的兑换码 ID');
export const updateSchema = z.object({ id, name, quota });
export const statusSchema = z.object({
  id,
  status: z.union([z.literal(1), z.literal(2)], { error: '状态只能是 1（启用）或 2（禁用）' }),
});

export const idParam = z.object({
  id: z.coerce.number().int().positive('无效的兑换码 ID').max(Number.MAX_SAFE_INTEGER, '无效的兑换码 ID'),
});
export const redeemSchema = z.object({
  key: z.string({ error: '请输入兑换码！' }).max(128, '兑换失败，无效的兑换码'),
});

/** Names are 1..20 characters (not bytes: Chinese names count one per character). */
export function checkName(n: string): void {
  const len = [...n].length;
  if (len < 1 || len > 20) throw new Error('兑换码名称长度必须在1-20之间');
}

/** Like parseOr400, but the message is the schema's own words (the spec's texts), without the field path. */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  throw new ApiError(r.error.issues[0]?.message ?? '参数错误');
}
