import { SingleFlight } from './single-flight.ts';

/**
 * When each unfinished task (by row id) was last asked about upstream, in this process, so a client's read
 * soon after a loop round asks nothing; and the single flight that joins concurrent reads of one task.
 */
export class TaskFreshness {
  private readonly looks = new Map<number, number>();
  private readonly flight = new SingleFlight<number>();

  constructor(readonly staleMs: number) {}

  /** Whether a read at `now` should ask the upstream about this row. */
  isStale(id: number, now: number): boolean {
    return now - (this.looks.get(id) ?? 0) >= this.staleMs;
  }

  /** The row was asked about at `now` (call only once its answer is saved). */
  seen(id: number, now: number): void {
    this.looks.set(id, now);
  }

  /** The row is final: nothing to remember. */
  forget(id: number): void {
    this.looks.delete(id);
  }

  /** Runs `work` for the row ids not already being refreshed in this process, and waits for all of them. */
  join(ids: number[], work: (fresh: number[]) => Promise<void>): Promise<void> {
    return this.flight.run(ids, work);
  }
}
