/** What an import moved and what it could not, per entity; printed at the end of a run. */
export interface Skipped {
  /** The source row's id (or key for options). */
  id: string;
  reason: string;
}

export class EntityReport {
  read = 0;
  imported = 0;
  unchanged = 0;
  readonly skipped: Skipped[] = [];
  /** Remarks that hold for many rows, with how many rows each concerns. */
  readonly notes = new Map<string, number>();

  constructor(readonly name: string) {}

  skip(id: string | number, reason: string): void {
    this.skipped.push({ id: String(id), reason });
  }

  note(text: string, rows = 1): void {
    this.notes.set(text, (this.notes.get(text) ?? 0) + rows);
  }
}

/** Rows listed per entity before the list is cut short (the counts stay exact). */
const LISTED = 50;

export class ImportReport {
  readonly entities = new Map<string, EntityReport>();

  constructor(
    readonly source: string,
    readonly flavor: string,
    readonly dryRun: boolean,
  ) {}

  entity(name: string): EntityReport {
    let e = this.entities.get(name);
    if (!e) {
      e = new EntityReport(name);
      this.entities.set(name, e);
    }
    return e;
  }

  get skippedTotal(): number {
    let n = 0;
    for (const e of this.entities.values()) n += e.skipped.length;
    return n;
  }

  format(): string {
    const verb = this.dryRun ? 'would import' : 'imported';
    const lines = [
      `${this.dryRun ? 'Dry run: nothing was written. ' : ''}Import from ${this.flavor} database ${this.source}`,
      '',
    ];
    for (const e of this.entities.values()) {
      lines.push(
        `${e.name}: ${e.read} read, ${e.imported} ${verb}, ${e.unchanged} already here, ${e.skipped.length} skipped`,
      );
      for (const s of e.skipped.slice(0, LISTED)) lines.push(`  skipped ${e.name} ${s.id}: ${s.reason}`);
      if (e.skipped.length > LISTED) lines.push(`  ... and ${e.skipped.length - LISTED} more skipped`);
      for (const [text, rows] of e.notes) lines.push(`  note: ${text}${rows > 1 ? ` (${rows} rows)` : ''}`);
    }
    return lines.join('\n');
  }

  toJSON() {
    return {
      source: this.source,
      flavor: this.flavor,
      dryRun: this.dryRun,
      entities: Object.fromEntries(
        [...this.entities.values()].map((e) => [
          e.name,
          {
            read: e.read,
            imported: e.imported,
            unchanged: e.unchanged,
            skipped: e.skipped,
            notes: Object.fromEntries(e.notes),
          },
        ]),
      ),
    };
  }
}
