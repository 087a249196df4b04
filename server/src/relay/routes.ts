import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';

/** Paths the relay owns: an unknown path under them gets an OpenAI-style 404, never the web page. */
export const RELAY_PREFIXES = ['/v1', '/v1beta', '/pg', '/mj', '/suno', '/dashboard'];

export async function registerRelay(_app: FastifyInstance, _ctx: AppContext): Promise<void> {
  // Filled in by the relay.
}
