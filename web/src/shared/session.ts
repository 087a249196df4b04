import { isAdmin, isRoot } from '@modelgate/shared';
import { useMemo } from 'react';
import { readJson, useStoredString, writeJson, writeString } from './storage.ts';

/** The signed-in user as stored under the `user` key. */
export interface SessionUser {
  id: number;
  username: string;
  display_name?: string;
  role: number;
  status?: number;
  group?: string;
}

const USER_KEY = 'user';

export function getStoredUser(): SessionUser | null {
  const user = readJson<SessionUser | null>(USER_KEY, null);
  return user && typeof user.id === 'number' ? user : null;
}

export function storeUser(user: SessionUser) {
  writeJson(USER_KEY, user);
}

export function clearStoredUser() {
  writeString(USER_KEY, null);
}

export interface Session {
  user: SessionUser | null;
  isLoggedIn: boolean;
  isAdmin: boolean;
  isRoot: boolean;
}

/** The stored user and what it may do; re-renders on login and logout. */
export function useSession(): Session {
  const raw = useStoredString(USER_KEY);
  return useMemo(() => {
    const user = raw ? getStoredUser() : null;
    return { user, isLoggedIn: !!user, isAdmin: isAdmin(user?.role), isRoot: isRoot(user?.role) };
  }, [raw]);
}
