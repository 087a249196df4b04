/** The console API's reply shape: every /api answer is `{success, message, data}`. */
export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

export const ok = <T>(data?: T, message = ''): Envelope<T> => ({ success: true, message, data });
export const fail = (message: string, data?: unknown): Envelope => ({
  success: false,
  message,
  ...(data === undefined ? {} : { data }),
});

/**
 * A client mistake on the console API. Thrown anywhere in a handler, it becomes
 * `{success:false, message}` with `status` (400 unless said otherwise) and nothing else happens. A `code`
 * goes with it (`{..., code}`) where the console shows its own words for the mistake in the reader's language.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly code?: string,
  ) {
    super(message);
  }
}
