import type { FastifyError } from 'fastify';

/** Fastify's own client errors (bad JSON, wrong content type, body too large) in plain words. */
export function friendlyClientError(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'invalid JSON in request body';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'unsupported content type';
    default:
      return err.message;
  }
}
