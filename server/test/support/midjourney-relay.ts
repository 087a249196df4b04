import { beforeAll, beforeEach, expect } from 'vitest';
import { midjourneyTasks } from '../../src/relay/tasks/midjourney/refresh.ts';
import type { TestDatabase } from './databases.ts';
import { type MidjourneyProxy, startMidjourneyProxy } from './mock-midjourney.ts';
import { type TaskPlatformSetup, TaskRelay } from './task-relay.ts';

export const SECRET = 'mj-proxy-secret-0123';
/** US$0.1 (mj_imagine) and US$0.05 (mj_upscale) at 500000 quota per dollar, group ratio 1. */
export const IMAGINE = 50_000;
export const UPSCALE = 25_000;
export const MJ_MODELS = [
  'mj_imagine',
  'mj_upscale',
  'mj_variation',
  'mj_reroll',
  'mj_describe',
  'mj_blend',
  'mj_upload',
];

export const MIDJOURNEY: TaskPlatformSetup<MidjourneyProxy> = {
  upstream: () => startMidjourneyProxy(SECRET),
  channel: { type: 2, key: SECRET, models: MJ_MODELS },
  root: 'mjroot',
};

/** The Midjourney relay over a mock midjourney-proxy, with the Mj options reset before each test. */
export class MidjourneyRelay extends TaskRelay<MidjourneyProxy> {
  constructor(engine: TestDatabase) {
    super({ engine, ...MIDJOURNEY });
    beforeAll(async () => {
      await this.ctx.options.set('ServerAddress', 'https://gateway.example');
      // The mock image host listens on 127.0.0.1.
      await this.ctx.options.set('fetch_setting.allow_private_ip', 'true');
    });
    beforeEach(async () => {
      for (const [k, v] of Object.entries({
        MjNotifyEnabled: 'false',
        MjAccountFilterEnabled: 'false',
        MjModeClearEnabled: 'false',
        MjForwardUrlEnabled: 'true',
        MjActionCheckSuccessEnabled: 'true',
      }))
        await this.ctx.options.set(k, v);
    });
  }

  /** One round of the task loop. */
  poll() {
    return midjourneyTasks.poll(this.state);
  }

  async imagine(apiKey: string, prompt = 'a red fox in the snow') {
    const r = await this.call('POST', '/mj/submit/imagine', apiKey, { prompt });
    expect(r.status).toBe(200);
    expect(r.body.code).toBe(1);
    return r.body.result as string;
  }

  /** A user's task rows: submit answer code, status, channel and charge. */
  async drawings(userId: number) {
    const rows = await this.ctx.db.db
      .selectFrom('midjourneys')
      .select(['code', 'status', 'channel_id', 'quota'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      ...r,
      code: Number(r.code),
      channel_id: Number(r.channel_id),
      quota: Number(r.quota),
    }));
  }

  /** A second channel of the default group, tried first with one retry allowed, removed again after `run`. */
  async withSecondChannel(key: string, run: (id: number) => Promise<void>) {
    await this.withChannel({ key }, async (id) => {
      await this.ctx.options.set('RetryTimes', '1');
      await run(id);
    });
  }
}
