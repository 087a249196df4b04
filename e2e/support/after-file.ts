import { afterAll } from 'vitest';
import { closeAll } from './close-at-end.ts';

// A setup file's hooks belong to each test file's root suite; vitest runs after-hooks newest first, so this one
// comes after the file's own afterAll (which may still use the page or the gateway).
afterAll(closeAll);
