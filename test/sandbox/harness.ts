import { type RunningSandbox, type SandboxOptions, startSandbox } from '#sandbox/server.ts';

export const TOKEN = 'sandbox-token';

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read loosely-shaped JSON replies
export type Json = any;

/** Thin fetch wrapper: JSON in and out, bearer token on by default. */
export function client(sandbox: RunningSandbox) {
  async function call(
    method: string,
    path: string,
    body?: unknown,
    options: { token?: string | null; rawBody?: string } = {},
  ): Promise<Reply<Json>> {
    const token = options.token === undefined ? TOKEN : options.token;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    const payload = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    const response = await fetch(`${sandbox.url}${path}`, { method, headers, body: payload });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === '' ? undefined : JSON.parse(text),
    };
  }

  let signups = 0;
  async function signup(
    overrides: {
      partner?: string;
      root?: string;
      email?: string;
      externalId?: string;
      portfolioName?: string;
    } = {},
  ): Promise<string> {
    signups += 1;
    const reply = await call(
      'POST',
      `${overrides.root ?? ''}/connect/v1/partner/${overrides.partner ?? 'acme'}/signup`,
      {
        userData: {
          firstName: 'Ada',
          lastName: 'Owner',
          email: overrides.email ?? `owner${signups}@example.test`,
        },
        businessData: {
          externalId: overrides.externalId ?? `acct-${signups}`,
          portfolioName: overrides.portfolioName ?? `Cafe ${signups}`,
        },
      },
    );
    if (reply.status !== 200) throw new Error(`signup failed: ${JSON.stringify(reply.body)}`);
    return reply.body.data.hostname as string;
  }

  const install = (hostname: string) => ({
    call: (
      method: string,
      path: string,
      body?: unknown,
      options?: { token?: string | null; rawBody?: string },
    ) => call(method, `/installs/${hostname}${path}`, body, options),
    query: async (resource: string, body?: unknown): Promise<Json[]> => {
      const reply = await call('POST', `/installs/${hostname}/api/v1/resource/${resource}/QUERY`, body);
      if (reply.status !== 200) throw new Error(`query failed: ${JSON.stringify(reply.body)}`);
      return reply.body;
    },
    dump: async (): Promise<Json> => (await call('GET', `/_sandbox/installs/${hostname}`)).body,
  });

  return { call, signup, install };
}

export async function startTestSandbox(opts: Pick<SandboxOptions, 'rateLimit' | 'lenient' | 'regions'> = {}) {
  const sandbox = await startSandbox({ port: 0, ...opts });
  return { sandbox, ...client(sandbox) };
}
