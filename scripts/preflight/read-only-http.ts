/**
 * The preflight's only way to the service: it sends reads and nothing else. A request whose method
 * and path are not one of the reads below is refused before a connection is opened, and so is an
 * address outside the configured provisioning roots and install base URLs (the token goes nowhere
 * else, as in the functions: functions/service/addresses.ts).
 */

/** The reads the preflight sends, each by method and path ending: the spec's read-only calls it needs, no more. */
export const READ_CALLS = [
  // "Returns subscription information for a business linked to the calling partner."
  {
    method: 'POST',
    name: 'subscription-status',
    path: /\/connect\/v1\/partner\/[^/]+\/subscription-status$/,
  },
  // The generic query: it reads records, whatever the resource.
  { method: 'POST', name: 'QUERY', path: /\/api\/v1\/resource\/[A-Za-z][A-Za-z0-9_]*\/QUERY$/ },
] as const;

export class WriteRefusedError extends Error {
  override readonly name = 'WriteRefusedError';
}

/** What one read answered: no answer at all is `status: 0` with the reason. */
export interface ReadAnswer {
  readonly status: number;
  /** The parsed JSON body, the text when it is not JSON, undefined when empty. */
  readonly body: unknown;
  /** Why there was no answer (connection refused, timeout, ...), when status is 0. */
  readonly failure?: string;
}

export interface ReadOnlyHttpOptions {
  /** Addresses the token may go to: the configured provisioning roots and install base URLs. */
  readonly allowedPrefixes: readonly string[];
  readonly token: string;
  /** @default 10000 */
  readonly timeoutMs?: number;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

export interface ReadOnlyHttp {
  /** Sends one read; throws WriteRefusedError, without sending, for anything else. */
  read(
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
    options?: { withToken?: boolean },
  ): Promise<ReadAnswer>;
  /** Every request sent, for the report's count. */
  readonly sent: readonly string[];
}

/** The read `method url` is, or a WriteRefusedError saying why it is not one. */
export function assertRead(method: string, url: string, allowedPrefixes: readonly string[]): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WriteRefusedError(`refused ${method} ${url}: not an absolute URL`);
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') {
    throw new WriteRefusedError(
      `refused ${method} ${parsed.pathname}: a read carries no query, fragment or credentials`,
    );
  }
  const address = `${parsed.origin}${parsed.pathname}`;
  if (!allowedPrefixes.some((prefix) => address.startsWith(`${prefix.replace(/\/+$/, '')}/`))) {
    throw new WriteRefusedError(
      `refused ${method} ${address}: not under a configured provisioning root or install base URL`,
    );
  }
  const upper = method.toUpperCase();
  if (!READ_CALLS.some((call) => call.method === upper && call.path.test(parsed.pathname))) {
    throw new WriteRefusedError(
      `refused ${upper} ${parsed.pathname}: not one of the reads the preflight may send (${READ_CALLS.map((call) => call.name).join(', ')})`,
    );
  }
}

export function readOnlyHttp(options: ReadOnlyHttpOptions): ReadOnlyHttp {
  const send = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const sent: string[] = [];
  return {
    sent,
    async read(method, url, body, readOptions = {}) {
      assertRead(method, url, options.allowedPrefixes);
      const headers: Record<string, string> = { accept: 'application/json' };
      if (readOptions.withToken ?? true) headers['authorization'] = `Bearer ${options.token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      sent.push(`${method} ${new URL(url).pathname}`);
      let answer: Response;
      try {
        answer = await send(url, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const cause = (error as Error).cause;
        const reason = cause instanceof Error ? cause.message : (error as Error).message;
        return { status: 0, body: undefined, failure: reason.replaceAll(options.token, '[REDACTED]') };
      }
      // A service that echoes the Authorization header must not put the token into the report.
      const text = (await answer.text()).replaceAll(options.token, '[REDACTED]');
      let parsed: unknown;
      if (text.trim() !== '') {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      return { status: answer.status, body: parsed };
    },
  };
}
