import { useCallback, useSyncExternalStore } from 'react';

/** Typed local-storage access with change notifications inside the page (the `storage` event covers other tabs). */
const listeners = new Set<() => void>();

function notify() {
  for (const l of listeners) l();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

export function readString(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeString(key: string, value: string | null) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // storage full or disabled: the value lives for this render only
  }
  notify();
}

export function readJson<T>(key: string, fallback: T): T {
  const raw = readString(key);
  if (raw === null) return fallback;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return fallback;
  }
}

export function writeJson(key: string, value: unknown) {
  writeString(key, value === undefined ? null : JSON.stringify(value));
}

/** A value remembered in local storage under `key` (JSON encoded), e.g. `useLocalSetting('page-size', 10)`. */
export function useLocalSetting<T>(key: string, fallback: T): [T, (value: T) => void] {
  const raw = useSyncExternalStore(subscribe, () => readString(key));
  let value = fallback;
  if (raw !== null) {
    try {
      value = JSON.parse(raw) as T;
    } catch {
      value = fallback;
    }
  }
  const set = useCallback((next: T) => writeJson(key, next), [key]);
  return [value, set];
}

/** Re-renders when `key` changes; returns the raw string. */
export function useStoredString(key: string): string | null {
  return useSyncExternalStore(subscribe, () => readString(key));
}
