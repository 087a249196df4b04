import type { FastifyRequest } from 'fastify';

/** How a task platform brings its rows up to date. */
export interface RowSource<T> {
  name: string;
  isTerminal(status: string): boolean;
  refresh(rows: T[]): Promise<unknown>;
  reread(ids: number[]): Promise<T[]>;
}

/**
 * Task rows for a client's read: when some are unfinished, they are refreshed from the upstream first (a
 * failure there is logged and the record answers), then reread, in the order asked.
 */
export async function currentRows<T extends { id: number; status: string }>(
  req: FastifyRequest,
  rows: T[],
  source: RowSource<T>,
): Promise<T[]> {
  if (rows.every((r) => source.isTerminal(r.status))) return rows;
  try {
    await source.refresh(rows);
  } catch (err) {
    req.log.warn({ err }, `${source.name} task refresh failed; answering from the record`);
  }
  const fresh = new Map((await source.reread(rows.map((r) => r.id))).map((r) => [r.id, r]));
  return rows.map((r) => fresh.get(r.id) ?? r);
}
