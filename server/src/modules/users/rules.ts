import { z } from 'zod';
import { hasHiddenCharacters } from './names.ts';

const HIDDEN = 'must not contain control, invisible or text-direction characters';

/** Field rules shared by registration, admin create/edit and self edit; the server checks them itself. */
export const USERNAME_MAX = 12;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 20;
export const DISPLAY_NAME_MAX = 20;
export const EMAIL_MAX = 50;

export const username = z
  .string({ error: 'username must be a string' })
  .trim()
  .min(1, 'username and password are required')
  .max(USERNAME_MAX, `username must be at most ${USERNAME_MAX} characters`)
  .refine((s) => !/\s/.test(s), 'username must not contain spaces')
  .refine((s) => !hasHiddenCharacters(s), `username ${HIDDEN}`);

export const password = z
  .string({ error: 'password must be a string' })
  .min(1, 'username and password are required')
  .min(PASSWORD_MIN, `password length must not be less than ${PASSWORD_MIN}`)
  .max(PASSWORD_MAX, `password must be at most ${PASSWORD_MAX} characters`);

export const displayName = z
  .string({ error: 'display_name must be a string' })
  .trim()
  .max(DISPLAY_NAME_MAX, `display_name must be at most ${DISPLAY_NAME_MAX} characters`)
  .refine((s) => !hasHiddenCharacters(s), `display_name ${HIDDEN}`);

export const email = z
  .string({ error: 'email must be a string' })
  .trim()
  .max(EMAIL_MAX, `e-mail must be at most ${EMAIL_MAX} characters`)
  .refine((s) => s === '' || z.email().safeParse(s).success, 'invalid email address');

export const group = z
  .string({ error: 'group must be a string' })
  .trim()
  .min(1, 'group must not be empty')
  .max(64, 'group must be at most 64 characters');
