import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { startRetentionJob } from './job.ts';

/** Retention has no routes of its own (its options are edited like any other): it starts the cleanup job. */
export default function retentionFeature(_app: FastifyInstance, ctx: AppContext) {
  startRetentionJob(ctx);
}
