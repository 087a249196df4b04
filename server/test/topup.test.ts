import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quotaOf, topUpLogs } from './support/balances.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { epayMd5, type FakeEpay, startFakeEpay } from './support/fake-epay.ts';
import { startServer, type TestServer } from './support/server.ts';

const PID = '1001';
const KEY = 'merchant-secret-key';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`online top-up on ${engine.name}`, () => {
    let server: TestServer;
    let epay: FakeEpay;
    let admin: ConsoleClient & { userId: number };
    let alice: ConsoleClient & { userId: number };

    const balance = (userId: number) => quotaOf(server.ctx, userId);
    const topupLogs = (userId: number) => topUpLogs(server.ctx, userId);
    const order = (tradeNo: string) =>
      server.ctx.db.db
        .selectFrom('top_ups')
        .selectAll()
        .where('trade_no', '=', tradeNo)
        .executeTakeFirstOrThrow();
    const setOptions = async (o: Record<string, string>) => {
      for (const [k, v] of Object.entries(o)) await server.ctx.options.set(k, v);
    };
    const enable = () =>
      setOptions({
        ServerAddress: server.url,
        PayAddress: epay.url,
        EpayId: PID,
        EpayKey: KEY,
        Price: '7.3',
        MinTopUp: '1',
        DisplayInCurrencyEnabled: 'true',
      });

    /** Creates an order as the browser would: /api/user/pay, then the hidden form POST to the gateway. */
    const checkout = async (client: ConsoleClient, amount: number, method: 'zfb' | 'wx' = 'zfb') => {
      const r = await client.post('/api/user/pay', { amount, payment_method: method, top_up_code: '' });
      expect(r.success, r.message).toBe(true);
      const { url, ...fields } = r.data as Record<string, string>;
      const res = await fetch(url, { method: 'POST', body: new URLSearchParams(fields) });
      expect(res.status).toBe(200);
      return fields;
    };

    beforeAll(async () => {
      server = await startServer({ db: engine });
      epay = await startFakeEpay({ pid: PID, key: KEY });
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      alice = await loginAs(server, { username: 'alice' });
    });
    afterAll(async () => {
      await epay?.close();
      await server?.close();
    });

    it('refuses quotes and payments while online top-up is not configured', async () => {
      for (const r of [
        await alice.post('/api/user/amount', { amount: 10, top_up_code: '' }),
        await alice.post('/api/user/pay', { amount: 10, payment_method: 'zfb' }),
      ]) {
        expect(r.status).toBe(400);
        expect(r.message).toBe('管理员未开启在线充值！');
      }
      // Merchant set but no ServerAddress: still off (the notify URL would be unknown).
      await setOptions({ PayAddress: epay.url, EpayId: PID, EpayKey: KEY });
      expect((await alice.post('/api/user/amount', { amount: 10 })).message).toBe('管理员未开启在线充值！');
      expect(await server.ctx.db.db.selectFrom('top_ups').selectAll().execute()).toEqual([]);
      const status = async () =>
        ((await (await fetch(`${server.url}/api/status`)).json()) as { data: Record<string, unknown> }).data;
      expect((await status()).enable_online_topup).toBe(false);
      await setOptions({ ServerAddress: server.url });
      expect(await status()).toMatchObject({ enable_online_topup: true, price: 7.3, min_topup: 1 });
    });

    it('quotes amount x Price x group ratio and enforces the minimum', async () => {
      await enable();
      const q = await alice.post('/api/user/amount', { amount: 10, top_up_code: '' });
      expect(q).toMatchObject({ success: true, message: 'success', data: '73.00' });

      await setOptions({ MinTopUp: '5' });
      const low = await alice.post('/api/user/amount', { amount: 3 });
      expect(low.status).toBe(400);
      expect(low.message).toBe('充值数量不能小于 5');
      expect((await alice.post('/api/user/pay', { amount: 3, payment_method: 'wx' })).message).toBe(
        '充值数量不能小于 5',
      );
      await setOptions({ MinTopUp: '1' });

      for (const [body, message] of [
        [{ amount: 0 }, '充值数量必须大于 0'],
        [{ amount: 2.5 }, '充值数量必须是整数'],
        [{}, '请输入充值数量'],
        [{ amount: 'ten' }, '请输入充值数量'],
        [{ amount: 10, payment_method: 'paypal' }, '不支持的支付方式（只支持 zfb 或 wx）'],
      ] as const) {
        const path = 'payment_method' in body ? '/api/user/pay' : '/api/user/amount';
        const r = await alice.post(path, body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.message).toBe(message);
      }

      const vip = await loginAs(server, { username: 'vipuser', group: 'vip' });
      await setOptions({ TopupGroupRatio: '{"vip":0.8}' });
      expect((await vip.post('/api/user/amount', { amount: 10 })).data).toBe('58.40');
      expect((await alice.post('/api/user/amount', { amount: 10 })).data).toBe('73.00');
      await setOptions({ TopupGroupRatio: '{}' });

      // Without currency display the amount is quota: the minimum is MinTopUp x QuotaPerUnit.
      await setOptions({ DisplayInCurrencyEnabled: 'false' });
      expect((await alice.post('/api/user/amount', { amount: 400000 })).message).toBe(
        '充值数量不能小于 500000',
      );
      expect((await alice.post('/api/user/amount', { amount: 1_000_000 })).data).toBe('14.60');
      await setOptions({ DisplayInCurrencyEnabled: 'true' });
    });

    it('creates a pending order with a correctly signed form for the gateway', async () => {
      const r = await alice.post('/api/user/pay', { amount: 3, payment_method: 'wx', top_up_code: '' });
      expect(r.success, r.message).toBe(true);
      const { url, ...fields } = r.data as Record<string, string>;
      expect(url).toBe(`${epay.url}/submit.php`);
      expect(fields).toMatchObject({
        pid: PID,
        type: 'wxpay',
        money: '21.90',
        sign_type: 'MD5',
        notify_url: `${server.url}/api/user/epay/notify`,
        name: 'TUC3',
      });
      expect(fields.out_trade_no).toMatch(new RegExp(`^USR${alice.userId}NO`));
      expect(fields.sign).toBe(epayMd5(fields, KEY));
      const o = await order(fields.out_trade_no);
      expect(o).toMatchObject({ status: 'pending', amount: 1_500_000, user_id: alice.userId });
      expect(Number(o.money)).toBe(21.9);
    });

    it('credits a paid order exactly once even when the notification arrives twice', async () => {
      const before = await balance(alice.userId);
      const logsBefore = (await topupLogs(alice.userId)).length;
      const fields = await checkout(alice, 10);
      expect(epay.orders.has(fields.out_trade_no)).toBe(true);
      expect(await epay.pay(fields.out_trade_no, { times: 3 })).toEqual(['success', 'success', 'success']);
      expect(await balance(alice.userId)).toBe(before + 10 * 500_000);
      expect((await order(fields.out_trade_no)).status).toBe('success');
      const logs = await topupLogs(alice.userId);
      expect(logs).toHaveLength(logsBefore + 1);
      expect(Number(logs.at(-1)?.quota)).toBe(5_000_000);
    });

    it('credits once when notifications arrive concurrently (GET and form POST)', async () => {
      const before = await balance(alice.userId);
      const fields = await checkout(alice, 2, 'wx');
      const replies = await epay.pay(fields.out_trade_no, { times: 20, parallel: true });
      expect(replies.every((r) => r === 'success')).toBe(true);
      const order2 = await checkout(alice, 1);
      const params: Record<string, string> = {
        pid: PID,
        trade_no: 'T1',
        out_trade_no: order2.out_trade_no,
        type: 'alipay',
        name: order2.name,
        money: order2.money,
        trade_status: 'TRADE_SUCCESS',
      };
      params.sign = epayMd5(params, KEY);
      params.sign_type = 'MD5';
      const posted = await Promise.all(
        Array.from({ length: 10 }, () => epay.notify(`${server.url}/api/user/epay/notify`, params, 'POST')),
      );
      expect(posted.every((r) => r === 'success')).toBe(true);
      expect(await balance(alice.userId)).toBe(before + 3 * 500_000);
    });

    it('credits nothing for a forged notification', async () => {
      const before = await balance(alice.userId);
      const logsBefore = (await topupLogs(alice.userId)).length;
      const fields = await checkout(alice, 50);
      const notifyUrl = `${server.url}/api/user/epay/notify`;
      // Signed with the wrong key, a tampered amount, another merchant, an unknown order, no signature.
      expect(await epay.pay(fields.out_trade_no, { signWith: 'not-the-key' })).toEqual(['fail']);
      expect(await epay.pay(fields.out_trade_no, { override: { money: '0.01' } })).toEqual(['fail']);
      expect(await epay.pay(fields.out_trade_no, { override: { pid: '999' } })).toEqual(['fail']);
      expect(await epay.pay(fields.out_trade_no, { override: { out_trade_no: 'USR1NOnothing' } })).toEqual([
        'fail',
      ]);
      const unsigned = {
        pid: PID,
        out_trade_no: fields.out_trade_no,
        money: fields.money,
        trade_status: 'TRADE_SUCCESS',
      };
      expect(await epay.notify(notifyUrl, unsigned)).toBe('fail');
      const tampered = { ...unsigned, sign: epayMd5(unsigned, KEY), sign_type: 'MD5', money: '1000.00' };
      expect(await epay.notify(notifyUrl, tampered)).toBe('fail');
      // A correctly signed notice of an unpaid state is acknowledged but changes nothing.
      expect(await epay.pay(fields.out_trade_no, { override: { trade_status: 'WAIT_BUYER_PAY' } })).toEqual([
        'success',
      ]);

      expect(await balance(alice.userId)).toBe(before);
      expect((await order(fields.out_trade_no)).status).toBe('pending');
      expect(await topupLogs(alice.userId)).toHaveLength(logsBefore);
      // The genuine notice still works afterwards.
      expect(await epay.pay(fields.out_trade_no)).toEqual(['success']);
      expect(await balance(alice.userId)).toBe(before + 50 * 500_000);
    });

    it('sends the buyer back to the wallet page', async () => {
      const res = await fetch(
        `${server.url}/api/user/epay/return?out_trade_no=USR1NOabc&trade_status=TRADE_SUCCESS`,
        { redirect: 'manual' },
      );
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/topup?pay=return&trade_no=USR1NOabc');
    });

    it('lists orders: users see their own, admins see everyone', async () => {
      const bob = await loginAs(server, { username: 'bob' });
      await checkout(bob, 4);
      const mine = await bob.get('/api/user/topup/orders?p=1&page_size=10');
      expect(mine.success).toBe(true);
      expect(mine.data.total).toBe(1);
      expect(mine.data.items.every((o: { user_id: number }) => o.user_id === bob.userId)).toBe(true);
      const aliceOrders = await alice.get('/api/user/topup/orders');
      expect(aliceOrders.data.items.length).toBeGreaterThan(0);
      expect(aliceOrders.data.items.every((o: { user_id: number }) => o.user_id === alice.userId)).toBe(true);
      const all = await admin.get('/api/user/topup/orders?page_size=100');
      const owners = new Set(all.data.items.map((o: { username: string }) => o.username));
      expect(owners).toEqual(new Set(['alice', 'bob']));
      expect((await admin.get('/api/user/topup/orders?mine=true')).data.total).toBe(0);
      expect(
        (await new (alice.constructor as typeof ConsoleClient)(server.url).get('/api/user/topup/orders'))
          .status,
      ).toBe(401);
    });
  });
}
