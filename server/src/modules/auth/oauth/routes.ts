import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../../context.ts';
import { ApiError, ok } from '../../../infra/envelope.ts';
import { criticalRateLimit } from '../../../infra/rate-limit.ts';
import type { Feature } from '../../index.ts';
import { serverAddress } from '../../options/server-address.ts';
import { parseBody } from '../../users/parse.ts';
import { sessionUser } from '../guard.ts';
import { completeSignIn, type SignInOptions } from './account.ts';
import {
  type ExternalIdentity,
  githubIdentity,
  linuxdoIdentity,
  oidcIdentity,
  telegramIdentity,
  wechatIdentity,
} from './providers.ts';
import { issueState, takeState } from './state.ts';

const CodeQuery = z.object({
  code: z.string({ error: 'code is required' }).min(1, 'code is required').max(512, 'code is too long'),
  state: z.string().max(64).optional(),
});

type Redirected = (ctx: AppContext, code: string, req: FastifyRequest) => Promise<ExternalIdentity>;

const REDIRECT_PROVIDERS: Record<
  string,
  { enabled: string; label: string; prefix: string; identity: Redirected }
> = {
  github: {
    enabled: 'GitHubOAuthEnabled',
    label: 'GitHub',
    prefix: 'github',
    identity: (ctx, code) => githubIdentity(ctx, code),
  },
  oidc: {
    enabled: 'oidc.enabled',
    label: 'OIDC',
    prefix: 'oidc',
    identity: (ctx, code) => oidcIdentity(ctx, code),
  },
  linuxdo: {
    enabled: 'LinuxDOOAuthEnabled',
    label: 'Linux DO',
    prefix: 'linuxdo',
    identity: (ctx, code) =>
      linuxdoIdentity(ctx, code, `${serverAddress(ctx.options, 'Linux DO sign-in')}/api/oauth/linuxdo`),
  },
};

const FIELDS = { github: 'github_id', oidc: 'oidc_id', linuxdo: 'linux_do_id' } as const;

/**
 * Third-party sign-in and its OAuth callback: GitHub, OIDC and Linux DO through a state round trip, WeChat
 * through its code server, Telegram through the login widget's signature. A logged-in caller binds instead of
 * logging in.
 */
export const oauthFeature: Feature = (app, ctx: AppContext) => {
  const critical = criticalRateLimit(ctx);
  const send = (r: { message: string; data?: unknown }) => ok(r.data, r.message);

  app.get('/oauth/state', { onRequest: critical }, async (req, reply) => {
    const aff = String((req.query as Record<string, unknown>)?.aff ?? '');
    return ok(issueState(reply, aff));
  });

  for (const [name, p] of Object.entries(REDIRECT_PROVIDERS)) {
    app.get(`/oauth/${name}`, { onRequest: critical }, async (req: FastifyRequest, reply: FastifyReply) => {
      if (!ctx.options.bool(p.enabled))
        throw new ApiError(`sign-in with ${p.label} is not enabled by the administrator`, 403);
      const q = req.query as Record<string, unknown>;
      if (typeof q?.error === 'string') throw new ApiError(String(q.error_description || q.error));
      const { code, state } = parseBody(CodeQuery, q);
      const { aff } = takeState(req, reply, state);
      const identity = await p.identity(ctx, code, req);
      const opts: SignInOptions = {
        field: FIELDS[name as keyof typeof FIELDS],
        label: p.label,
        prefix: p.prefix,
        mayRegister: true,
        affCode: aff,
      };
      return send(await completeSignIn(ctx, req, reply, identity, opts));
    });
  }

  const wechat = async (req: FastifyRequest, reply: FastifyReply, bindOnly: boolean) => {
    if (!ctx.options.bool('WeChatAuthEnabled'))
      throw new ApiError('sign-in with WeChat is not enabled by the administrator', 403);
    const { code } = parseBody(CodeQuery, req.query);
    if (bindOnly && !(await sessionUser(ctx, req))) throw new ApiError('log in first to bind WeChat', 401);
    const identity = await wechatIdentity(ctx, code);
    const result = await completeSignIn(ctx, req, reply, identity, {
      field: 'wechat_id',
      label: 'WeChat',
      prefix: 'wechat',
      mayRegister: !bindOnly,
    });
    return send(result);
  };
  app.get('/oauth/wechat', { onRequest: critical }, (req, reply) => wechat(req, reply, false));
  app.get('/oauth/wechat/bind', { onRequest: critical }, (req, reply) => wechat(req, reply, true));

  const telegram = async (req: FastifyRequest, reply: FastifyReply, bindOnly: boolean) => {
    if (!ctx.options.bool('TelegramOAuthEnabled'))
      throw new ApiError('sign-in with Telegram is not enabled by the administrator', 403);
    if (bindOnly && !(await sessionUser(ctx, req))) throw new ApiError('log in first to bind Telegram', 401);
    const identity = telegramIdentity(ctx, (req.query as Record<string, unknown>) ?? {});
    return completeSignIn(ctx, req, reply, identity, {
      field: 'telegram_id',
      label: 'Telegram',
      prefix: 'telegram',
      mayRegister: false,
    });
  };
  app.get('/oauth/telegram/login', { onRequest: critical }, async (req, reply) =>
    send(await telegram(req, reply, false)),
  );
  // The widget opens this address in the browser: success goes back to the settings page.
  app.get('/oauth/telegram/bind', { onRequest: critical }, async (req, reply) => {
    await telegram(req, reply, true);
    return reply.redirect('/setting');
  });
};
