import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';

/** A console feature: registers its /api routes. One line per feature in FEATURES below. */
export type Feature = (app: FastifyInstance, ctx: AppContext) => Promise<void> | void;

export const FEATURES: Feature[] = [];
