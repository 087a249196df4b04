import { channelTypeInfo } from '@modelgate/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type FormData, Response } from 'undici';
import type { AppContext } from '../context.ts';
import { requireUser } from '../modules/auth/guard.ts';
import { authenticate, checkAllowedIp, usableGroups } from './auth.ts';
import { billingSubscription, billingUsage } from './billing-emulation.ts';
import { badRequest, RelayError, relayFailure } from './errors.ts';
import { type RelayReply, type RelayRequest, setRelayCors } from './exchange.ts';
import { inspectJson, type Mode } from './formats/openai/request.ts';
import { parseJsonBody } from './json-body.ts';
import type { Lane } from './lane/lane.ts';
import { runRelay } from './pipeline.ts';
import { decodeRequestBody } from './request-decoding.ts';
import { relayState } from './state.ts';

/** Paths the relay owns: an unknown path under them gets an OpenAI-style 404, never the web page. */
export const RELAY_PREFIXES = ['/v1', '/v1beta', '/pg', '/mj', '/suno', '/dashboard'];

const MODEL_CREATED = 1626777600;

/** The relay's routes, in their own Fastify scope so errors keep OpenAI's shape while /api keeps the envelope. */
export async function registerRelay(app: FastifyInstance, ctx: AppContext, lane: Lane): Promise<void> {
  const state = relayState(ctx);
  await state.channels.ready;

  await app.register(async (r) => {
    r.setErrorHandler((err, req, reply) => {
      const { status, body } = relayFailure(err, req.id, req.log);
      return reply.status(status).send(body);
    });

    r.addHook('preParsing', (req, _reply, payload, done) => {
      const decoded = decodeRequestBody(req.headers['content-encoding'], payload);
      if (decoded instanceof RelayError) return done(decoded);
      done(null, decoded);
    });

    // JSON read exactly as the fast lane reads it (depth limit, prototype keys refused).
    r.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      try {
        done(null, parseJsonBody(body as string));
      } catch (err) {
        done(err as Error);
      }
    });
    // Audio uploads: keep the raw bytes; the form is parsed only to read the model.
    r.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (_req, body, done) =>
      done(null, body),
    );

    r.addHook('onRequest', (req, reply, done) => {
      setRelayCors(reply, req.headers.origin);
      done();
    });
    r.options('/v1/*', async (req, reply) => {
      reply
        .header('access-control-allow-methods', 'GET, POST, PUT, DELETE, OPTIONS')
        .header('access-control-allow-headers', String(req.headers['access-control-request-headers'] ?? '*'))
        .code(204)
        .send();
    });

    const json = (mode: Mode) => async (req: RelayRequest & { params?: unknown }, reply: RelayReply) => {
      const caller = await authenticate(state, req);
      checkAllowedIp(caller.token, req.ip);
      const body = req.body as Record<string, unknown>;
      const params = req.params as { model?: string } | undefined;
      if (params?.model && body && typeof body === 'object' && !body.model) body.model = params.model;
      await runRelay(state, req, reply, caller, { mode, info: inspectJson(mode, body), json: body });
      return reply;
    };
    const multipart = (mode: Mode) => async (req: FastifyRequest, reply: FastifyReply) => {
      const caller = await authenticate(state, req);
      checkAllowedIp(caller.token, req.ip);
      const raw = req.body;
      const contentType = String(req.headers['content-type'] ?? '');
      if (!Buffer.isBuffer(raw) || !contentType.startsWith('multipart/form-data')) {
        throw new RelayError(
          415,
          'this endpoint expects multipart/form-data with a file and a model',
          'invalid_request_error',
          'unsupported_media_type',
        );
      }
      let form: FormData;
      try {
        form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
      } catch {
        throw badRequest('malformed multipart/form-data body');
      }
      const model = form.get('model');
      if (typeof model !== 'string' || !model)
        throw badRequest('model is required', 'model_required', 'model');
      if (!(form.get('file') instanceof Blob)) throw badRequest('file is required', 'invalid_value', 'file');
      const info = {
        model,
        stream: false,
        wantsUsage: false,
        maxTokens: 0,
        promptEstimate: 0,
        inputText: '',
      };
      await runRelay(state, req, reply, caller, { mode, info, form, uploadBytes: raw.length });
      return reply;
    };

    const jsonRoutes: Array<[string, Mode]> = [
      ['/v1/chat/completions', 'chat'],
      ['/v1/completions', 'completions'],
      ['/v1/embeddings', 'embeddings'],
      ['/v1/moderations', 'moderations'],
      ['/v1/images/generations', 'images'],
      ['/v1/audio/speech', 'speech'],
      ['/v1/rerank', 'rerank'],
    ];
    for (const [path, mode] of jsonRoutes) {
      // The lane serves exact paths with a JSON body; Fastify keeps the route for every other form.
      const handler = json(mode);
      lane.route(path, handler);
      r.post(path, handler);
    }
    r.post('/v1/engines/:model/embeddings', json('embeddings'));
    r.post('/v1/audio/transcriptions', multipart('transcriptions'));
    r.post('/v1/audio/translations', multipart('translations'));

    const notImplemented = async () => {
      throw new RelayError(501, 'API not implemented', 'new_api_error', 'api_not_implemented');
    };
    r.post('/v1/images/edits', notImplemented);
    r.post('/v1/images/variations', notImplemented);
    r.all('/v1/files', notImplemented);
    r.all('/v1/files/*', notImplemented);
    r.all('/v1/fine-tunes', notImplemented);
    r.all('/v1/fine-tunes/*', notImplemented);
    r.delete('/v1/models/:model', notImplemented);

    const ownedBy = (group: string, model: string) => {
      const ch = state.channels.tiers(group, model)[0]?.channels[0];
      return ch ? (channelTypeInfo(ch.type)?.name ?? 'custom').toLowerCase().replaceAll(' ', '-') : 'custom';
    };
    const visibleModels = async (req: FastifyRequest) => {
      const caller = await authenticate(state, req, { xApiKey: true, google: true });
      let models = state.channels.models(caller.group);
      const limits = caller.token?.modelLimits;
      if (limits) models = models.filter((m) => limits.has(m));
      return { caller, models };
    };
    const modelObject = (id: string, group: string) => ({
      id,
      object: 'model',
      created: MODEL_CREATED,
      owned_by: ownedBy(group, id),
    });

    // Playground: the console session pays from the user's balance (no token), in the group the body names.
    r.post('/pg/chat/completions', { preHandler: requireUser(ctx) }, async (req, reply) => {
      if (req.authVia !== 'session')
        throw new RelayError(
          400,
          'the playground needs a console session, not an access token',
          'invalid_request_error',
          'access_token_not_supported',
        );
      const user = await state.users.get((req.user as { id: number }).id);
      if (!user)
        throw new RelayError(
          401,
          'login expired, please log in again',
          'invalid_request_error',
          'unauthorized',
        );
      const body = req.body as Record<string, unknown>;
      const asked = typeof body?.group === 'string' && body.group ? body.group : user.group;
      if (!usableGroups(state, user).has(asked))
        throw new RelayError(
          403,
          `group ${asked} is not available to this user`,
          'invalid_request_error',
          'group_not_allowed',
        );
      const json = { ...body };
      delete json.group;
      const caller = { user, token: null, tokenName: `playground-${asked}`, group: asked };
      await runRelay(state, req, reply, caller, { mode: 'chat', info: inspectJson('chat', json), json });
      return reply;
    });

    r.get('/v1/models', async (req) => {
      const { caller, models } = await visibleModels(req);
      return { object: 'list', data: models.map((id) => modelObject(id, caller.group)) };
    });
    r.get('/v1/models/:model', async (req) => {
      const { caller, models } = await visibleModels(req);
      const id = (req.params as { model: string }).model;
      if (!models.includes(id))
        throw new RelayError(
          404,
          `The model '${id}' does not exist`,
          'invalid_request_error',
          'model_not_found',
          'model',
        );
      return modelObject(id, caller.group);
    });

    for (const prefix of ['', '/v1']) {
      r.get(`${prefix}/dashboard/billing/subscription`, async (req) =>
        billingSubscription(state, await authenticate(state, req)),
      );
      r.get(`${prefix}/dashboard/billing/usage`, async (req) =>
        billingUsage(state, await authenticate(state, req)),
      );
    }
  });
}
