import { channelTypeInfo } from '@modelgate/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type FormData, Response } from 'undici';
import type { AppContext } from '../../context.ts';
import { requireUser } from '../../modules/auth/guard.ts';
import { authenticate, type Caller, checkAllowedIp, usableGroups } from '../admit/auth.ts';
import { countTokensAnswer, inputOf } from '../admit/decode-input.ts';
import { inspectJson, type Mode } from '../admit/inspect-request.ts';
import { openaiModels } from '../formats/chat/models.ts';
import { codecFor } from '../formats/codecs.ts';
import type { WireFormat } from '../formats/hub.ts';
import { type RelayInput, runRelay } from '../pipeline.ts';
import { attachRealtime } from '../realtime/upgrade.ts';
import { badRequest, failureStatus, RelayError } from '../relay-error.ts';
import { relayState } from '../relay-state.ts';
import { registerMidjourney } from '../tasks/midjourney/routes.ts';
import { registerSuno } from '../tasks/suno/routes.ts';
import { decodeRequestBody } from './content-encoding.ts';
import { type Endpoint, EXACT_ENDPOINTS, endpointOf, GEMINI_PREFIXES, geminiEndpoint } from './endpoints.ts';
import { failureIn } from './error-reply.ts';
import { type RelayReply, type RelayRequest, setRelayCors } from './exchange.ts';
import { parseJsonBody } from './json-body.ts';
import type { Lane, LaneRoute } from './lane/lane.ts';
import { billingSubscription, billingUsage } from './legacy-dashboard.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The wire format a relay route answers in (errors included); OpenAI's when unset. */
    format?: WireFormat;
  }
}

/** Requests whose protocol is known only once their headers are read (the model list). */
const answeredIn = new WeakMap<FastifyRequest, WireFormat>();

/** Paths the relay owns: an unknown path under them gets an OpenAI-style 404, never the web page. */
export const RELAY_PREFIXES = [
  '/v1',
  '/v1beta',
  '/pg',
  '/mj',
  '/mj-fast',
  '/mj-turbo',
  '/mj-relax',
  '/suno',
  '/dashboard',
];

/** The relay's routes, in their own Fastify scope so errors keep OpenAI's shape while /api keeps the envelope. */
export async function registerRelay(app: FastifyInstance, ctx: AppContext, lane: Lane): Promise<void> {
  const state = relayState(ctx);
  await state.channels.ready;
  attachRealtime(app, state);

  await app.register(async (r) => {
    r.setErrorHandler((err, req, reply) => {
      const format = answeredIn.get(req) ?? req.routeOptions.config.format ?? 'openai';
      const { status, body, headers } = failureIn(format, err, req.id, req.log);
      if (headers) reply.headers(headers);
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

    const json = (fixed?: Endpoint) => async (req: RelayRequest, reply: RelayReply) => {
      const ep = fixed ?? endpointOf(pathOf(req.url));
      if (!ep) throw notFound(req.url);
      let caller: Caller;
      let input: RelayInput;
      try {
        const known = authenticate(state, req, ep.keys);
        caller = known instanceof Promise ? await known : known;
        checkAllowedIp(caller.token, req.ip);
        input = inputOf(ep, req.body, req);
      } catch (err) {
        state.metrics?.answeredHere(ep.format, failureStatus(err));
        throw err;
      }
      if (ep.mode === 'count_tokens' && input.hub) {
        reply.code(200).send(await countTokensAnswer(ep.format, input.hub));
        state.metrics?.answeredHere(ep.format, 200, input.info.model);
        return reply;
      }
      await runRelay(state, req, reply, caller, input);
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
        promptBound: 0,
        inputText: '',
      };
      await runRelay(state, req, reply, caller, {
        mode,
        format: 'openai',
        info,
        form,
        uploadBytes: raw.length,
      });
      return reply;
    };

    // The lane serves exact paths with a JSON body; Fastify keeps the routes for every other form.
    const laneRoutes = new Map<string, LaneRoute>();
    for (const [path, ep] of Object.entries(EXACT_ENDPOINTS)) {
      const handler = json(ep);
      laneRoutes.set(path, { handler, format: ep.format });
      r.post(path, { config: { format: ep.format } }, handler);
    }
    const gemini = json();
    lane.use((path) => {
      const hit = laneRoutes.get(path);
      if (hit) return hit;
      const ep = geminiEndpoint(path);
      return ep ? { handler: gemini, format: 'gemini' } : null;
    });
    for (const prefix of GEMINI_PREFIXES) r.post(`${prefix}*`, { config: { format: 'gemini' } }, gemini);
    r.post('/v1/engines/:model/embeddings', async (req, reply) => {
      const body = req.body as Record<string, unknown>;
      const { model } = req.params as { model: string };
      // A new object: the parsed one stands for the client's text, which has no model.
      if (body && typeof body === 'object' && !body.model) req.body = { ...body, model };
      return json(EXACT_ENDPOINTS['/v1/embeddings'])(req, reply);
    });
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
    const listingOf = (format: WireFormat) => codecFor(format).models ?? openaiModels;

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
      await runRelay(state, req, reply, caller, {
        mode: 'chat',
        format: 'openai',
        info: inspectJson('chat', json),
        json,
      });
      return reply;
    });

    // The model list answers in the caller's format: Anthropic's for x-api-key with anthropic-version,
    // Google's for x-goog-api-key or ?key= (and always under /v1beta), OpenAI's otherwise.
    const listFormat = (req: FastifyRequest): WireFormat => {
      const h = req.headers;
      if (h['x-api-key'] && h['anthropic-version']) return 'anthropic';
      if (h['x-goog-api-key'] || (req.query as { key?: unknown } | undefined)?.key) return 'gemini';
      return 'openai';
    };
    const modelList = async (req: FastifyRequest, format: WireFormat) => {
      const { caller, models } = await visibleModels(req);
      return listingOf(format).list(models, (id) => ownedBy(caller.group, id));
    };
    const oneModel = async (req: FastifyRequest, format: WireFormat) => {
      const { caller, models } = await visibleModels(req);
      const id = (req.params as { model: string }).model.replace(/^models\//, '');
      if (!models.includes(id))
        throw new RelayError(
          404,
          `The model '${id}' does not exist`,
          'invalid_request_error',
          'model_not_found',
          'model',
        );
      return listingOf(format).one(id, (m) => ownedBy(caller.group, m));
    };
    r.get('/v1/models', async (req) => {
      const format = listFormat(req);
      answeredIn.set(req, format);
      return modelList(req, format);
    });
    r.get('/v1/models/:model', async (req) => {
      const format = listFormat(req);
      answeredIn.set(req, format);
      return oneModel(req, format);
    });
    r.get('/v1beta/models', { config: { format: 'gemini' } }, async (req) => modelList(req, 'gemini'));
    r.get('/v1beta/models/:model', { config: { format: 'gemini' } }, async (req) => oneModel(req, 'gemini'));

    for (const prefix of ['', '/v1']) {
      r.get(`${prefix}/dashboard/billing/subscription`, async (req) =>
        billingSubscription(state, await authenticate(state, req)),
      );
      r.get(`${prefix}/dashboard/billing/usage`, async (req) =>
        billingUsage(state, await authenticate(state, req)),
      );
    }
  });
  await registerMidjourney(app, state);
  await registerSuno(app, state);
}

const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

const notFound = (url: string) =>
  new RelayError(404, `Invalid URL (POST ${pathOf(url)})`, 'invalid_request_error', 'not_found');
