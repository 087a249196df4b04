import { type RawBuilder, sql } from 'kysely';

/** `column LIKE %text%` with the user's % and _ taken literally, the same on SQLite, PostgreSQL and MySQL. */
export function containsLike(column: string, text: string): RawBuilder<boolean> {
  const escaped = text.replace(/[!%_]/g, (c) => `!${c}`);
  return sql<boolean>`${sql.ref(column)} LIKE ${`%${escaped}%`} ESCAPE '!'`;
}
