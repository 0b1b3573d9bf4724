/**
 * A refusal the sandbox answers with an HTTP status and a `{code, message}` error object.
 * Codes and statuses are fixed by docs/internals.md so the connector can rely on them.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function invalid(message: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', message);
}

export function notFound(message: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', message);
}
