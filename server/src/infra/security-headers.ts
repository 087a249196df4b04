import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Headers every console reply (pages and /api) carries. The CSP allows the console's own scripts and the two
 * third-party widgets it loads (Cloudflare Turnstile, the Telegram login widget); antd writes inline styles,
 * so style-src needs 'unsafe-inline'. Admin-set pages (About, chat apps) may be shown in a frame, so frames
 * may come from any https origin, but nobody may frame the console itself.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self' https://challenges.cloudflare.com https://telegram.org",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  // The task log plays generated songs where the upstream keeps them (Suno's CDN).
  "media-src 'self' blob: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'frame-src https:',
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  // No form-action: online top-up submits its signed form to the payment gateway's own address.
].join('; ');

export function setSecurityHeaders(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('content-security-policy', CSP);
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  if (req.protocol === 'https')
    reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
}
