import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ApiFailure, api, browserNavigation } from '../src/api/client.ts';
import i18n from '../src/i18n/index.ts';
import { errorText } from '../src/shared/feedback.tsx';

const calls: Array<{ url: string; init: RequestInit }> = [];

function answer(status: number, body: unknown) {
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
}

beforeEach(async () => {
  calls.length = 0;
  localStorage.clear();
  await i18n.changeLanguage('zh');
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('api client', () => {
  test('sends the stored user id and no-store, and unwraps data', async () => {
    localStorage.setItem('user', JSON.stringify({ id: 7, username: 'alice', role: 1 }));
    answer(200, { success: true, message: '', data: { items: [1, 2], total: 2 } });
    const data = await api.get<{ total: number }>('/api/user/', { p: 1, page_size: 10, keyword: '' });
    expect(data.total).toBe(2);
    expect(calls[0].url).toBe('/api/user/?p=1&page_size=10');
    const headers = calls[0].init.headers as Record<string, string>;
    expect(headers['New-API-User']).toBe('7');
    expect(headers['Cache-Control']).toBe('no-store');
  });

  test('success:false throws the server message, shown with the error label', async () => {
    answer(200, { success: false, message: 'wrong username or password' });
    const err = await api.post('/api/user/login', { username: 'a', password: 'b' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiFailure);
    expect((err as ApiFailure).message).toBe('wrong username or password');
    expect(errorText(err)).toBe('错误：wrong username or password');
  });

  test('401 clears the stored user and goes to /login?expired=true', async () => {
    localStorage.setItem('user', JSON.stringify({ id: 7, username: 'alice', role: 1 }));
    const assign = vi.spyOn(browserNavigation, 'assign').mockImplementation(() => {});
    answer(401, { success: false, message: 'not logged in' });
    await expect(api.get('/api/user/self')).rejects.toBeInstanceOf(ApiFailure);
    expect(localStorage.getItem('user')).toBeNull();
    expect(assign).toHaveBeenCalledWith('/login?expired=true');
  });

  test('HTTP errors map to the error catalogue', async () => {
    const cases: Array<[number, string]> = [
      [429, '请求次数过多，请稍后再试！'],
      [500, '服务器内部错误，请联系管理员！'],
      [405, '本站仅作演示之用，无服务端！'],
      [404, '错误：Invalid URL'],
    ];
    for (const [status, text] of cases) {
      answer(status, { success: false, message: 'Invalid URL' });
      const err = await api.get('/api/x').catch((e: unknown) => e);
      expect(errorText(err)).toBe(text);
    }
    await i18n.changeLanguage('en');
    answer(429, { success: false, message: '' });
    expect(errorText(await api.get('/api/x').catch((e: unknown) => e))).toBe(
      'Too many requests, please try again later.',
    );
  });
});
