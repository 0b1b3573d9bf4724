import { withPutBack } from './put-back.ts';

/**
 * The service as a handler found it, where its raw replay would otherwise be refused.
 *
 * Two of the service's writes cannot be sent twice: a signup with the same `externalId` (409
 * EXTERNAL_ID_NOT_UNIQUE) and a plan change to the plan the business is already on (409). The
 * sandbox refuses those quicker than it does the work, so a replay answered 409 costs the raw side
 * less than the handler paid. (With the sandbox in the bench's own process, its work lands inside
 * both sides' timings: a signup's seeded install was 0.4–0.6 ms per event that only the handler's
 * side paid.) So before the replay the bench puts the service back with the sandbox's own control
 * endpoints: the business a signup created is deleted (the replay creates it again, under a new
 * hostname: the sandbox numbers them; the bench never uses a signed-up account again), and a
 * business whose plan changed is put back on a plan the change moves it from (the sandbox does the
 * same work from a trial as from the free plan). After the replay, a changed plan is set to what
 * the handler left (its edition; a cancel's start of the free period is the replay's). Outside the
 * timing and the recording. Nothing else of the service is put back: a create the service accepts
 * again (a location and its areas, an employee) adds its records a second time, which costs the
 * replay what it cost the handler, and later events of the run find one more record.
 */

/** A service request as the bench recorded it (bench/recorder.ts, bench/first-invocation.ts). */
export interface ServiceRequestLike {
  readonly system: string;
  readonly status?: number;
  readonly http?: { readonly method: string; readonly path: string; readonly body: string | Buffer };
}

interface BusinessView {
  readonly hostname: string;
  readonly partner: string;
  readonly externalId: string;
  readonly edition: string;
}

/** What a change-plan action moves a business from: an upgrade from a free plan, a cancel from paid. */
const EDITION_BEFORE: Record<string, string> = {
  upgrade: 'SUBSCRIPTION_FREE',
  cancel: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
};

async function control(sandboxUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const answer = await fetch(new URL(path, sandboxUrl), {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`sandbox ${method} ${path} answered ${answer.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

function bodyOf(request: ServiceRequestLike): Record<string, Record<string, unknown> | undefined> {
  try {
    return JSON.parse(request.http?.body.toString() || '{}') as Record<
      string,
      Record<string, unknown> | undefined
    >;
  } catch {
    return {};
  }
}

/** The handler's service writes a replay could not repeat, as the put-back needs them. */
export function unrepeatableWrites(requests: readonly ServiceRequestLike[]): {
  signups: string[];
  planChanges: Array<{ hostname: string; action: string }>;
} {
  const succeeded = requests.filter(
    (request) =>
      request.system === 'service' &&
      request.http?.method === 'POST' &&
      (request.status ?? 0) >= 200 &&
      (request.status ?? 0) < 300,
  );
  const signups = succeeded
    .filter((request) => request.http?.path.endsWith('/signup'))
    .map((request) => String(bodyOf(request)['businessData']?.['externalId'] ?? ''))
    .filter((externalId) => externalId !== '');
  const planChanges = succeeded
    .filter((request) => request.http?.path.endsWith('/change-plan'))
    .map((request) => {
      const data = bodyOf(request)['data'] ?? {};
      return { hostname: String(data['hostname'] ?? ''), action: String(data['action'] ?? '') };
    })
    .filter((change) => change.hostname !== '' && EDITION_BEFORE[change.action] !== undefined);
  return { signups, planChanges };
}

/**
 * Runs `replay` with the service put back as `handlerRequests` found it (see above), then sets each
 * changed plan to what the handler left.
 */
export async function fromServiceStateMet<T>(
  sandboxUrl: string,
  handlerRequests: readonly ServiceRequestLike[],
  replay: () => Promise<T>,
): Promise<T> {
  const { signups, planChanges } = unrepeatableWrites(handlerRequests);
  if (signups.length === 0 && planChanges.length === 0) return replay();
  const left = new Map<string, string>();
  const editionPath = (hostname: string) => `/_sandbox/businesses/${encodeURIComponent(hostname)}/edition`;
  return withPutBack('the replay and putting the plans back', {
    setUp: async () => {
      if (signups.length > 0) {
        const businesses = (await control(sandboxUrl, 'GET', '/_sandbox/businesses')) as BusinessView[];
        for (const business of businesses.filter((one) => signups.includes(one.externalId))) {
          await control(
            sandboxUrl,
            'DELETE',
            `/_sandbox/businesses/${encodeURIComponent(business.hostname)}`,
          );
        }
      }
      for (const { hostname, action } of planChanges) {
        // Only a business's first change is put back: it is the plan the handler found.
        if (left.has(hostname)) continue;
        const answer = (await control(sandboxUrl, 'POST', editionPath(hostname), {
          edition: EDITION_BEFORE[action],
        })) as { previousEdition: string };
        left.set(hostname, answer.previousEdition);
      }
    },
    run: replay,
    restore: async () => {
      for (const [hostname, edition] of left)
        await control(sandboxUrl, 'POST', editionPath(hostname), { edition });
    },
  });
}
