import { z } from 'zod';

const int0 = z.coerce.number().int('must be an integer').min(0, 'must not be negative').default(0);
const text = (max: number) => z.string().trim().max(max).default('');

/** The task log's filters (with new-api's platform, action and status); times in seconds. */
export const listQuery = z.object({
  p: int0,
  channel_id: int0,
  task_id: text(191),
  platform: text(30),
  action: text(40),
  status: text(20),
  start_timestamp: int0,
  end_timestamp: int0,
});
export type ListQuery = z.infer<typeof listQuery>;
