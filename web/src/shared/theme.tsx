import { createContext, type ReactNode, useContext, useEffect } from 'react';
import { useStoredString, writeString } from './storage.ts';

export type ThemeMode = 'light' | 'dark';
export const THEME_KEY = 'theme-mode';

const ThemeModeContext = createContext<{ mode: ThemeMode; setMode: (mode: ThemeMode) => void }>({
  mode: 'light',
  setMode: () => {},
});

function initialMode(): ThemeMode {
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Light or dark, remembered under `theme-mode` (stored as a plain string, like the reference console). */
export function ThemeModeProvider({ children }: { children: ReactNode }) {
  const stored = useStoredString(THEME_KEY);
  const setStored = (next: ThemeMode) => writeString(THEME_KEY, next);
  const mode: ThemeMode = stored === 'dark' || stored === 'light' ? stored : initialMode();
  useEffect(() => {
    document.body.setAttribute('theme-mode', mode);
    document.documentElement.style.colorScheme = mode;
  }, [mode]);
  return (
    <ThemeModeContext.Provider value={{ mode, setMode: setStored }}>{children}</ThemeModeContext.Provider>
  );
}

export function useThemeMode() {
  return useContext(ThemeModeContext);
}
