import { kindOfStatus, parseJsonOrNull } from '../../formats/common.ts';
import type { HubError, HubErrorKind } from '../../formats/hub.ts';

/** Tencent Cloud error codes by family (first match wins), as status and hub kind. */
const RULES: Array<[RegExp, number, HubErrorKind]> = [
  [/^AuthFailure(\.|$)/, 401, 'authentication'],
  [/^(UnauthorizedOperation|OperationDenied)(\.|$)/, 403, 'permission'],
  [
    /^(RequestLimitExceeded|LimitExceeded)(\.|$)|^FailedOperation\.EngineServerLimitExceeded/,
    429,
    'rate_limit',
  ],
  [/^ResourceInsufficient(\.|$)|^ResourceUnavailable\.(InArrears|LowBalance|StopUsing)/, 429, 'quota'],
  [/^ResourceUnavailable(\.|$)/, 403, 'permission'],
  [
    /^(InvalidParameter|InvalidParameterValue|MissingParameter|UnknownParameter|UnsupportedOperation)(\.|$)/,
    400,
    'invalid_request',
  ],
  [/^FailedOperation\.EngineRequestTimeout/, 504, 'timeout'],
];

/** A Tencent Cloud `Response.Error` (`{Code, Message}`) as a hub error. */
export function hunyuanError(code: unknown, message: unknown): HubError {
  const c = typeof code === 'string' ? code : '';
  const rule = RULES.find(([re]) => re.test(c));
  const status = rule?.[1] ?? 500;
  return {
    status,
    kind: rule?.[2] ?? 'server',
    message:
      typeof message === 'string' && message ? message : `Tencent Cloud error ${c || 'without a code'}`,
    code: c || null,
    param: null,
  };
}

/** A stream's `ErrorMsg` (`{Code: 4000 | 4001, Msg}`): the service failed or timed out mid-answer. */
export function streamError(e: { Code?: unknown; Msg?: unknown }): HubError {
  const timeout = e.Code === 4001;
  return {
    status: timeout ? 504 : 500,
    kind: timeout ? 'timeout' : 'server',
    message: typeof e.Msg === 'string' && e.Msg ? e.Msg : 'the Hunyuan stream failed',
    code: e.Code === undefined ? null : String(e.Code),
    param: null,
  };
}

/** A non-2xx answer (Tencent answers 200 even to errors; this is a proxy's or a wrong address's). */
export function decodeError(status: number, raw: string): HubError {
  const e = parseJsonOrNull(raw)?.Response?.Error;
  if (e && typeof e === 'object') return hunyuanError(e.Code, e.Message);
  return {
    status,
    kind: kindOfStatus(status),
    message: raw.trim() && raw.length < 500 ? raw.trim() : `Hunyuan answered status ${status}`,
    code: null,
    param: null,
  };
}
