/**
 * How long the gateway keeps what piles up: usage log rows, audit log entries, and drawing and music/video tasks once they have
 * finished (unfinished tasks are always kept). Days; 0 keeps them forever. The dashboard's hourly buckets are
 * never deleted by these, so old days still chart.
 */
export const RETENTION_OPTIONS = {
  LogRetentionDays: { default: 0, min: 0, max: 3650 },
  TaskRetentionDays: { default: 0, min: 0, max: 3650 },
  /** The audit log's own retention (root only), separate from the usage log's. */
  AuditLogRetentionDays: { default: 0, min: 0, max: 3650 },
} as const;
export type RetentionOptionKey = keyof typeof RETENTION_OPTIONS;

/** Why a retention value is refused, or undefined when it is fine. */
export function retentionOptionProblem(key: RetentionOptionKey, value: number): string | undefined {
  const r = RETENTION_OPTIONS[key];
  if (!Number.isInteger(value)) return 'expected a whole number of days';
  if (value < r.min || value > r.max) return `must be between ${r.min} and ${r.max} days (0 keeps forever)`;
  return undefined;
}
