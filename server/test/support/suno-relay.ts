import { beforeEach, expect } from 'vitest';
import { sunoTasks } from '../../src/relay/tasks/suno/refresh.ts';
import type { TestDatabase } from './databases.ts';
import { type SunoApi, startSunoApi } from './mock-suno.ts';
import { type TaskPlatformSetup, TaskRelay } from './task-relay.ts';

export const SECRET = 'suno-api-secret-0123';
/** US$0.1 (suno_music) and US$0.01 (suno_lyrics) at 500000 quota per dollar, group ratio 1. */
export const MUSIC = 50_000;
export const LYRICS = 5_000;
export const MODELS = ['suno_music', 'suno_lyrics'];

export const SUNO: TaskPlatformSetup<SunoApi> = {
  upstream: () => startSunoApi(SECRET),
  channel: { type: 36, key: SECRET, models: MODELS },
  root: 'sunoroot',
};

/** The Suno relay over a mock Suno API proxy, with no retries unless a test asks for them. */
export class SunoRelay extends TaskRelay<SunoApi> {
  constructor(engine: TestDatabase) {
    super({ engine, ...SUNO });
    beforeEach(async () => {
      await this.ctx.options.set('RetryTimes', '0');
    });
  }

  /** One round of the task loop. */
  poll() {
    return sunoTasks.poll(this.state);
  }

  async music(apiKey: string, prompt = 'a sea shanty about a lighthouse keeper') {
    const r = await this.call('POST', '/suno/submit/music', apiKey, {
      prompt,
      tags: 'folk, shanty',
      title: 'Keeper',
    });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe('success');
    return r.body.data as string;
  }

  taskRows(userId: number) {
    return this.ctx.db.db.selectFrom('tasks').selectAll().where('user_id', '=', userId).execute();
  }
}
