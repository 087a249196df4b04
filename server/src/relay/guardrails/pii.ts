import type { PiiKind } from './policy.ts';

/** One piece of text a rule found: [start, end) in the text searched. */
export interface Span {
  start: number;
  end: number;
}

/** The Luhn checksum every payment card number passes (and most other 16-digit numbers fail). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The ISO 7064 MOD 11-2 check character of an 18-character PRC resident identity number. */
function prcIdValid(id: string): boolean {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (id.charCodeAt(i) - 48) * weights[i];
  return '10X98765432'[sum % 11] === id[17].toUpperCase();
}

const digitsOf = (s: string) => s.replace(/\D/g, '');

function spans(text: string, re: RegExp, accept?: (match: string) => boolean): Span[] {
  const out: Span[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!accept || accept(m[0])) out.push({ start: m.index, end: m.index + m[0].length });
    if (m[0].length === 0) re.lastIndex++;
  }
  return out;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,24}/g;
// Retina image names (logo@2x.png) look like addresses: no top-level domain is a file extension.
const FILE_SUFFIX = /\.(?:png|jpe?g|gif|svg|webp|avif|ico|bmp|js|mjs|ts|css|json|html?|txt|md|pdf)$/i;
// 13-19 digits, single spaces or dashes allowed between them (4111 1111 1111 1111, 4111-1111-...).
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])/g;
// International (+44 20 7946 0958), North American with separators ((415) 555-0132, 415-555-0132) and PRC
// mobile numbers (13812345678). A bare run of digits is not a phone number: order numbers look like that.
const PHONE =
  /(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}|1[3-9]\d{9})(?![\w])/g;
const SSN = /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/g;
const PRC_ID =
  /(?<![\dA-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![\dA-Za-z])/g;
const API_KEY =
  /(?<![A-Za-z0-9_-])(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,}|AIza[0-9A-Za-z_-]{35}|xox[abprs]-[A-Za-z0-9-]{10,})(?![A-Za-z0-9_-])/g;

/** Each kind's detector: the spans of realistic text that are that kind of personal data or secret. */
export const DETECTORS: Record<PiiKind, (text: string) => Span[]> = {
  email: (text) => (text.includes('@') ? spans(text, EMAIL, (m) => !FILE_SUFFIX.test(m)) : []),
  card: (text) =>
    spans(text, CARD, (m) => {
      const d = digitsOf(m);
      // Separators must group the digits as cards print them, not run through a list of numbers.
      return d.length >= 13 && d.length <= 19 && !/[ -]{2}/.test(m) && luhnValid(d);
    }),
  phone: (text) =>
    spans(text, PHONE, (m) => {
      const n = digitsOf(m).length;
      return n >= 7 && n <= 15;
    }),
  national_id: (text) => [...spans(text, SSN), ...spans(text, PRC_ID, prcIdValid)],
  api_key: (text) => spans(text, API_KEY),
};

export const MASK_OF: Record<PiiKind, string> = {
  email: '[EMAIL]',
  phone: '[PHONE]',
  card: '[CARD]',
  national_id: '[NATIONAL_ID]',
  api_key: '[API_KEY]',
};
