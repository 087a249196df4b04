import type { Registry } from 'prom-client';
import type { WireFormat } from '../../relay/formats/hub.ts';
import { type Cell, CellCounter } from './cell-counter.ts';

const FORMATS: WireFormat[] = ['openai', 'responses', 'anthropic', 'gemini'];

/** The response cache's counters (relay/response-cache/), by client format; no model, user or token labels. */
export class ResponseCacheMetrics {
  private readonly lookups = new Map<string, Cell>();
  private readonly stores: Cell;
  private readonly savedPrompt: Cell;
  private readonly savedCompletion: Cell;
  private readonly savedQuota: Cell;

  constructor(registry: Registry) {
    const lookups = new CellCounter(
      registry,
      'modelgate_response_cache_lookups_total',
      'Requests the response cache was asked for, by client format and result (hit or miss).',
      ['format', 'result'],
    );
    for (const format of FORMATS)
      for (const result of ['hit', 'miss'])
        this.lookups.set(`${format}:${result}`, lookups.cell({ format, result }));
    this.stores = new CellCounter(
      registry,
      'modelgate_response_cache_stores_total',
      'Answers kept in the response cache.',
      [],
    ).cell({});
    const saved = new CellCounter(
      registry,
      'modelgate_response_cache_saved_tokens_total',
      'Tokens answered from the response cache instead of an upstream, by direction.',
      ['direction'],
    );
    this.savedPrompt = saved.cell({ direction: 'prompt' });
    this.savedCompletion = saved.cell({ direction: 'completion' });
    this.savedQuota = new CellCounter(
      registry,
      'modelgate_response_cache_saved_quota_total',
      'Quota the cache hits would have cost at full price, less what they were charged.',
      [],
    ).cell({});
  }

  looked(format: WireFormat, hit: boolean): void {
    const cell = this.lookups.get(`${format}:${hit ? 'hit' : 'miss'}`);
    if (cell) cell.value++;
  }

  stored(): void {
    this.stores.value++;
  }

  /** Answers kept since the start. */
  get storedCount(): number {
    return this.stores.value;
  }

  saved(prompt: number, completion: number, quota: number): void {
    this.savedPrompt.value += prompt;
    this.savedCompletion.value += completion;
    this.savedQuota.value += quota;
  }
}
