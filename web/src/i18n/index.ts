import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import common from './common.ts';
import shell from './shell.ts';

export type Lang = 'zh' | 'en';
export const LANGS: Lang[] = ['zh', 'en'];
export const LANG_KEY = 'i18nextLng';

type Dict = { [key: string]: string | Dict };
type LocaleFile = { default: { zh: Dict; en: Dict } };

/** Flattens nested dictionaries to dotted keys, so a feature may write either `{ 'token.title': .. }` or `{ token: { title: .. } }`. */
function flatten(dict: Dict, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  for (const [key, value] of Object.entries(dict)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out[full] = value;
    else flatten(value, full, out);
  }
  return out;
}

/**
 * Every feature's `i18n.ts` (a sub-folder's own too, and `i18n-*.ts` when one file would grow too long) is merged
 * into the default namespace.
 */
const featureFiles = import.meta.glob<LocaleFile>('../features/**/i18n*.ts', { eager: true });

function buildResources() {
  const zh: Record<string, string> = {};
  const en: Record<string, string> = {};
  for (const file of [
    { default: common },
    { default: shell },
    ...Object.values(featureFiles),
  ] as LocaleFile[]) {
    Object.assign(zh, flatten(file.default.zh));
    Object.assign(en, flatten(file.default.en));
  }
  return { zh: { translation: zh }, en: { translation: en } };
}

/** The console's language for a stored value (`zh`, `en`, `zh-CN`, `en-US` ...), or null when it names neither. */
function langOf(stored: string | null): Lang | null {
  if (stored === 'zh' || stored === 'en') return stored;
  if (stored?.startsWith('zh')) return 'zh';
  if (stored?.startsWith('en')) return 'en';
  return null;
}

export function detectLang(): Lang {
  const stored = langOf(localStorage.getItem(LANG_KEY));
  if (stored) return stored;
  return navigator.language?.toLowerCase().startsWith('en') ? 'en' : 'zh';
}

i18n.use(initReactI18next).init({
  resources: buildResources(),
  lng: detectLang(),
  fallbackLng: 'zh',
  keySeparator: false,
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
});

function applyLang(lng: string) {
  document.documentElement.lang = lng === 'en' ? 'en' : 'zh-CN';
}
applyLang(i18n.language);
i18n.on('languageChanged', (lng) => {
  localStorage.setItem(LANG_KEY, lng);
  applyLang(lng);
});

// The language chosen in another tab of the console applies here too, as the theme does.
window.addEventListener('storage', (e) => {
  if (e.key !== LANG_KEY) return;
  const lang = langOf(e.newValue);
  if (lang && lang !== i18n.language) void i18n.changeLanguage(lang);
});

export function currentLang(): Lang {
  return i18n.language === 'en' ? 'en' : 'zh';
}

export default i18n;
