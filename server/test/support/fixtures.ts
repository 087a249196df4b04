import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Recorded provider responses that the mock upstreams replay. They live in the repository
 * (server/test/fixtures/upstream, see its README for where they come from and their license), so a clone
 * anywhere runs every test.
 */
export const FIXTURES = new URL('../fixtures/upstream/', import.meta.url);

/** The text of one recording; a missing file fails at once with its path, never as a hung mock. */
export function fixtureText(rel: string): string {
  const url = new URL(rel, FIXTURES);
  if (!existsSync(url))
    throw new Error(`missing upstream fixture ${rel} (looked in ${fileURLToPath(FIXTURES)})`);
  return readFileSync(url, 'utf8');
}

export const fixtureJson = (rel: string) => JSON.parse(fixtureText(rel));

/** The chunk payloads of a .chunks.txt recording. */
export const fixtureChunks = (rel: string) =>
  fixtureText(rel)
    .split('\n')
    .filter((l) => l.trim() !== '');

/**
 * The chunk payloads of a .chunks.txt recording, re-spaced: the decoders' text-delta patterns match only the
 * compact JSON servers send, so every re-spaced payload takes the full parse.
 */
export const respacedChunks = (rel: string) =>
  fixtureChunks(rel).map((l) => JSON.stringify(JSON.parse(l), null, 1));
