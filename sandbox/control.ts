import { invalid, notFound } from './errors.ts';
import { faultPlanSchema } from './faults.ts';
import { isObject } from './fields.ts';
import { applyDueMetrics } from './install.ts';
import { currentEdition, deleteLapsedBusinesses } from './provisioning.ts';
import { json, type Route, type SandboxResponse } from './routing.ts';
import { stageRecords } from './staging.ts';
import type { Business, Edition, SandboxState } from './state.ts';
import { toIsoOffset } from './time.ts';

export interface ControlContext {
  state: SandboxState;
  body: unknown;
}

function clockReading(state: SandboxState): SandboxResponse {
  return json(200, { now: toIsoOffset(state.clock.now()) });
}

function moveClock({ state, body }: ControlContext): SandboxResponse {
  if (!isObject(body)) throw invalid('body must be {"advanceDays": n} or {"now": iso}');
  const { advanceDays, now } = body;
  if (typeof advanceDays === 'number' && Number.isFinite(advanceDays)) {
    state.clock.advanceDays(advanceDays);
  } else if (typeof now === 'string' && !Number.isNaN(Date.parse(now))) {
    state.clock.set(Date.parse(now));
  } else {
    throw invalid('advanceDays (number) or now (ISO 8601 timestamp) is required');
  }
  return clockReading(state);
}

function configureFaults({ state, body }: ControlContext): SandboxResponse {
  const parsed = faultPlanSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid fault plan'}`);
  }
  state.faults.configure(parsed.data);
  return json(200, state.faults.describe());
}

function businessView(business: Business, now: number) {
  return {
    hostname: business.hostname,
    partner: business.partner,
    externalId: business.externalId,
    portfolioName: business.portfolioName,
    email: business.email,
    edition: currentEdition(business, now),
    trialEndDate: toIsoOffset(business.trialEndsAt),
    conversionDate: '',
  };
}

function listBusinesses({ state }: ControlContext): SandboxResponse {
  deleteLapsedBusinesses(state);
  const now = state.clock.now();
  return json(
    200,
    [...state.businesses.values()].map((business) => businessView(business, now)),
  );
}

function existingBusiness(state: SandboxState, hostname: string): Business {
  deleteLapsedBusinesses(state);
  const business = state.businesses.get(hostname);
  if (!business) throw notFound(`business ${hostname} not found`);
  return business;
}

/**
 * The service deletes a business and its install on its own ("while in SUBSCRIPTION_FREE a
 * business may be deleted by the service"): from now on subscription-status and change-plan
 * answer HOSTNAME_NOT_LINKED (or the code of the mode's notLinkedErrorCode knob) and the install
 * is gone. Any edition may be deleted here, so a test need not wait for a trial to lapse.
 */
function deleteBusiness({ state }: ControlContext, [hostname = '']: string[]): SandboxResponse {
  const business = existingBusiness(state, hostname);
  const view = businessView(business, state.clock.now());
  state.businesses.delete(hostname);
  state.installs.delete(hostname);
  return json(200, { deleted: view });
}

const EDITIONS: readonly Edition[] = [
  'SUBSCRIPTION_PRO_TRIAL',
  'SUBSCRIPTION_FREE',
  'SUBSCRIPTION_PAID_PRO_PREMIUM',
];

/**
 * The edition changes at the service without the partner (support, the business owner in the
 * product). FREE starts the free period now (the deletion of free businesses counts from it); a trial can
 * only be set back while its end is still ahead, since the service ends a lapsed trial at once.
 */
function changeEdition({ state, body }: ControlContext, [hostname = '']: string[]): SandboxResponse {
  const business = existingBusiness(state, hostname);
  const edition = isObject(body) ? body['edition'] : undefined;
  if (typeof edition !== 'string' || !(EDITIONS as readonly string[]).includes(edition)) {
    throw invalid(`edition must be one of ${EDITIONS.join(', ')}`);
  }
  const now = state.clock.now();
  if (edition === 'SUBSCRIPTION_PRO_TRIAL' && now >= business.trialEndsAt) {
    throw invalid(
      `the trial of ${hostname} ended at ${toIsoOffset(business.trialEndsAt)}; it cannot be resumed`,
    );
  }
  const previous = currentEdition(business, now);
  business.edition = edition as Edition;
  business.cancelledAt =
    edition === 'SUBSCRIPTION_FREE' ? (previous === 'SUBSCRIPTION_FREE' ? business.cancelledAt : now) : null;
  return json(200, { previousEdition: previous, ...businessView(business, now) });
}

function dumpInstall({ state }: ControlContext, [hostname = '']: string[]): SandboxResponse {
  deleteLapsedBusinesses(state);
  const install = state.installs.get(hostname);
  if (!install) throw notFound(`install ${hostname} not found`);
  applyDueMetrics(install, state.clock.now());
  // Bulk metrics not visible yet (the spec reading) are listed apart, never in `Metric`.
  const pending =
    install.pendingMetrics.length === 0
      ? {}
      : {
          _pendingMetrics: install.pendingMetrics.map((entry) => ({
            visibleAt: toIsoOffset(entry.visibleAt),
            record: entry.record,
          })),
        };
  return json(200, structuredClone({ ...install.tables, ...pending }));
}

export const controlRoutes: ReadonlyArray<Route<ControlContext>> = [
  { method: 'GET', pattern: /^\/_sandbox\/clock$/, handle: ({ state }) => clockReading(state) },
  { method: 'POST', pattern: /^\/_sandbox\/clock$/, handle: moveClock },
  {
    method: 'GET',
    pattern: /^\/_sandbox\/faults$/,
    handle: ({ state }) => json(200, state.faults.describe()),
  },
  { method: 'POST', pattern: /^\/_sandbox\/faults$/, handle: configureFaults },
  {
    method: 'DELETE',
    pattern: /^\/_sandbox\/faults$/,
    handle: ({ state }) => {
      state.faults.clear();
      return json(200, null);
    },
  },
  { method: 'GET', pattern: /^\/_sandbox\/businesses$/, handle: listBusinesses },
  { method: 'DELETE', pattern: /^\/_sandbox\/businesses\/([^/]+)$/, handle: deleteBusiness },
  { method: 'POST', pattern: /^\/_sandbox\/businesses\/([^/]+)\/edition$/, handle: changeEdition },
  { method: 'GET', pattern: /^\/_sandbox\/installs\/([^/]+)$/, handle: dumpInstall },
  {
    method: 'POST',
    pattern: /^\/_sandbox\/installs\/([^/]+)\/records\/([^/]+)$/,
    handle: ({ state, body }, [hostname = '', resource = '']) => {
      const stored = stageRecords(state, hostname, resource, body);
      return json(stored.status, stored.body);
    },
  },
  { method: 'GET', pattern: /^\/_sandbox\/mode$/, handle: ({ state }) => json(200, state.mode.describe()) },
  {
    method: 'POST',
    pattern: /^\/_sandbox\/mode$/,
    handle: ({ state, body }) => json(200, state.mode.configure(body)),
  },
  { method: 'GET', pattern: /^\/_sandbox\/requests$/, handle: ({ state }) => json(200, state.requestLog) },
  {
    method: 'POST',
    pattern: /^\/_sandbox\/reset$/,
    handle: ({ state }) => {
      state.reset();
      return json(200, { reset: true });
    },
  },
];
