import { LogType } from '@modelgate/shared';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { applyLogFilter, type LogFilter } from './filters.ts';

/** Consumption summed over some usage log rows. */
export interface ConsumeSums {
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
}

const num = (v: unknown) => Number(v ?? 0);

export function toSums(r: {
  quota: unknown;
  prompt_tokens: unknown;
  completion_tokens: unknown;
}): ConsumeSums {
  return {
    quota: num(r.quota),
    prompt_tokens: num(r.prompt_tokens),
    completion_tokens: num(r.completion_tokens),
  };
}

export function addSums(parts: ConsumeSums[]): ConsumeSums {
  const total = { quota: 0, prompt_tokens: 0, completion_tokens: 0 };
  for (const p of parts) {
    total.quota += p.quota;
    total.prompt_tokens += p.prompt_tokens;
    total.completion_tokens += p.completion_tokens;
  }
  return total;
}

/** Consumption (type 2, whatever type the filter names) of the log rows under the filters. */
export async function sumConsumption(db: Kysely<Database>, f: LogFilter): Promise<ConsumeSums> {
  const row = await applyLogFilter(db.selectFrom('logs'), f, { withType: false })
    .where('type', '=', LogType.Consume)
    .select((eb) => [
      eb.fn.sum<number>('quota').as('quota'),
      eb.fn.sum<number>('prompt_tokens').as('prompt_tokens'),
      eb.fn.sum<number>('completion_tokens').as('completion_tokens'),
    ])
    .executeTakeFirstOrThrow();
  return toSums(row);
}
