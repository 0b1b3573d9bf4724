export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface SandboxResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface Route<Context> {
  method: HttpMethod;
  pattern: RegExp;
  handle(context: Context, params: string[]): SandboxResponse;
}

export type RouteMatch<Context> =
  | { kind: 'found'; route: Route<Context>; params: string[] }
  | { kind: 'method-not-allowed'; allow: HttpMethod[] }
  | { kind: 'not-found' };

export function matchRoute<Context>(
  routes: ReadonlyArray<Route<Context>>,
  method: string,
  path: string,
): RouteMatch<Context> {
  const allow: HttpMethod[] = [];
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    if (route.method !== method) {
      allow.push(route.method);
      continue;
    }
    const params = match.slice(1).map((part) => (part === undefined ? '' : safeDecode(part)));
    return { kind: 'found', route, params };
  }
  return allow.length > 0 ? { kind: 'method-not-allowed', allow } : { kind: 'not-found' };
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function json(status: number, body: unknown, headers?: Record<string, string>): SandboxResponse {
  return headers ? { status, body, headers } : { status, body };
}
