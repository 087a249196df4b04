import { DAYS } from './rows.ts';

export type Kind = 'list' | 'stat' | 'data';

export interface Case {
  name: string;
  kind: Kind;
  /** Who asks: the administrator or the seeded user `user<N>`. */
  as: 'admin' | `user${number}`;
  path: string;
  query: Record<string, string | number>;
}

/** Where the keyset cases start: a row in the middle of the table, as a console page deep in would hold. */
export interface Cursor {
  before_time: number;
  before_id: number;
}

const DAY = 86_400;

/**
 * The queries the console and scripts send, relative to the newest row (`end`). Seeded skew: user1 has about
 * 3% of all rows, user7 0.6%, user900 0.05%; gpt-4o-mini is the most used model, moonshot-v1-8k the least;
 * type 5 (errors) is 2% of rows; group vip 20%.
 */
export function logCases(end: number, cursor: Cursor): Case[] {
  const day = { start_timestamp: end - DAY, end_timestamp: end + 3600 };
  const pastDay = { start_timestamp: end - 30 * DAY, end_timestamp: end - 29 * DAY };
  const admin = (name: string, query: Record<string, string | number>, kind: Kind = 'list'): Case => ({
    name,
    kind,
    as: 'admin',
    path: kind === 'stat' ? '/api/log/stat' : '/api/log/',
    query: kind === 'list' ? { p: 1, page_size: 10, ...query } : query,
  });
  const self = (
    user: `user${number}`,
    name: string,
    query: Record<string, string | number>,
    kind: Kind = 'list',
  ): Case => ({
    name: `${user}: ${name}`,
    kind,
    as: user,
    path: kind === 'stat' ? '/api/log/self/stat' : '/api/log/self/',
    query: kind === 'list' ? { p: 1, page_size: 10, ...query } : query,
  });
  const users: Array<`user${number}`> = ['user1', 'user900'];
  return [
    admin('first page, no filter', {}),
    admin('console default (last 24 h)', day),
    admin('page 1000 of 10 (deepest page the capped count offers)', { p: 1000 }),
    admin('page 100 of 100', { p: 100, page_size: 100 }),
    admin('page 50,000 of 10 (offset 499,990)', { p: 50_000 }),
    admin('keyset page from a cursor 45 days back', { ...cursor }),
    admin('keyset page 3 after a cursor 45 days back', { ...cursor, p: 3 }),
    admin('type = errors', { type: 5 }),
    admin('type = top-ups', { type: 1 }),
    admin('username, heavy user', { username: 'user1' }),
    admin('username, light user', { username: 'user900' }),
    admin('token name', { token_name: 'token-3-1' }),
    admin('model, most used', { model_name: 'gpt-4o-mini' }),
    admin('model, least used', { model_name: 'moonshot-v1-8k' }),
    admin('group vip', { group: 'vip' }),
    admin('channel', { channel: 7 }),
    admin('one day 30 days ago', pastDay),
    admin('username + 24 h', { username: 'user7', ...day }),
    admin('model + 24 h', { model_name: 'gpt-4o', ...day }),
    admin('channel + 24 h', { channel: 7, ...day }),
    admin('group + 24 h', { group: 'vip', ...day }),
    admin('type errors + 24 h', { type: 5, ...day }),
    admin('type errors + model', { type: 5, model_name: 'claude-3-haiku' }),
    admin('username + model', { username: 'user7', model_name: 'gpt-4o' }),
    admin('username + type consume', { username: 'user7', type: 2 }),
    admin('model + channel', { model_name: 'grok-2', channel: 3 }),
    admin('model + group + type errors', { model_name: 'gpt-4o', group: 'vip', type: 5 }),
    admin('username + model + one day 30 days ago', { username: 'user1', model_name: 'gpt-4o', ...pastDay }),
    admin('token name + 24 h', { token_name: 'token-1-0', ...day }),
    ...users.flatMap((u) => [
      self(u, 'first page', {}),
      self(u, 'console default (last 24 h)', day),
      self(u, 'page 1000 of 10', { p: 1000 }),
      self(u, 'type errors', { type: 5 }),
      self(u, 'model', { model_name: 'gpt-4o' }),
      self(u, 'token name', { token_name: `token-${u.slice(4)}-1` }),
      self(u, 'model + 24 h', { model_name: 'gpt-4o-mini', ...day }),
      self(u, 'one day 30 days ago', pastDay),
    ]),
    admin('stat, last 24 h', day, 'stat'),
    admin('stat, one day 30 days ago', pastDay, 'stat'),
    admin('stat, model + 24 h', { model_name: 'gpt-4o-mini', ...day }, 'stat'),
    admin('stat, username, all time', { username: 'user7' }, 'stat'),
    admin('stat, heavy username, all time', { username: 'user1' }, 'stat'),
    admin(`stat, everything (${DAYS} days)`, {}, 'stat'),
    self('user1', 'stat, last 24 h', day, 'stat'),
    self('user1', 'stat, all time', {}, 'stat'),
    self('user900', 'stat, all time', {}, 'stat'),
  ];
}

/** The dashboard's calls: its three default windows (hour, day and week views), for the admin and a user. */
export function dataCases(end: number): Case[] {
  const windows: Array<[string, number]> = [
    ['24 h', DAY],
    ['7 days', 7 * DAY],
    ['30 days', 30 * DAY],
  ];
  return windows.flatMap(([label, span]) => {
    const query = { start_timestamp: end + 3600 - span, end_timestamp: end + 3600 };
    return [
      { name: `data, all users, ${label}`, kind: 'data', as: 'admin', path: '/api/data/', query },
      {
        name: `data, username filter, ${label}`,
        kind: 'data',
        as: 'admin',
        path: '/api/data/',
        query: { ...query, username: 'user1' },
      },
      { name: `user1: data self, ${label}`, kind: 'data', as: 'user1', path: '/api/data/self/', query },
    ] satisfies Case[];
  });
}
