import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { adminUrlPolicy, guardedFetch } from '../../infra/ssrf.ts';
import { parseOr400 } from '../../infra/validate.ts';
import { requireAdmin } from '../auth/guard.ts';

const discoveryBody = z.object({
  well_known: z
    .string()
    .trim()
    .max(2048)
    .regex(/^https?:\/\//i, 'the well-known address must start with http:// or https://'),
});

/**
 * Helpers of the settings page that need the server: reading an OIDC provider's well-known document
 * (fetched here through the SSRF guard, so the admin's browser sends nothing of ours to a third party).
 */
export default function settingsFeature(app: FastifyInstance, ctx: AppContext) {
  app.post('/option/oidc_discovery', { preHandler: requireAdmin(ctx) }, async (req) => {
    const { well_known } = parseOr400(discoveryBody, req.body);
    let doc: Record<string, unknown>;
    try {
      const res = await guardedFetch(well_known, {
        policy: adminUrlPolicy(ctx.options),
        timeoutMs: 10_000,
        headers: { accept: 'application/json' },
      });
      if (!res.ok) throw new Error(`the provider answered HTTP ${res.status}`);
      doc = (await res.json()) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ApiError(`failed to fetch the OIDC configuration: ${(err as Error).message}`, 400);
    }
    const field = (name: string) => (typeof doc?.[name] === 'string' ? (doc[name] as string) : '');
    const endpoints = {
      authorization_endpoint: field('authorization_endpoint'),
      token_endpoint: field('token_endpoint'),
      userinfo_endpoint: field('userinfo_endpoint'),
    };
    if (!endpoints.authorization_endpoint || !endpoints.token_endpoint) {
      throw new ApiError('the document is not an OIDC configuration (no authorization or token endpoint)');
    }
    return ok(endpoints);
  });
}
