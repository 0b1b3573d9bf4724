import { ApiError, invalid } from './errors.ts';
import {
  isObject,
  type JsonObject,
  optionalString,
  requireBodyObject,
  requiredObject,
  requiredString,
} from './fields.ts';
import { type Region, SEED_READINGS } from './records.ts';
import { json, type Route, type SandboxResponse } from './routing.ts';
import { createInstall } from './seed.ts';
import type { Business, Edition, SandboxState } from './state.ts';
import { DAY_MS, toIsoOffset } from './time.ts';

export interface ProvisioningContext {
  state: SandboxState;
  body: unknown;
}

const TRIAL_DAYS = 30;
const MOBILE_PATTERN = /^\+?\d{8,15}$/;

export function provisioningEnvelope(data: unknown): SandboxResponse {
  return json(200, { success: true, data, error: null });
}

function regionOf(param: string | undefined): Region {
  return param === 'uk' || param === 'au' ? param : 'us';
}

/**
 * The service sends no event when a trial runs out, so the sandbox applies the expiry
 * whenever a business is looked at; the outcome is the same as a background job.
 */
export function currentEdition(business: Business, now: number): Edition {
  if (business.edition === 'SUBSCRIPTION_PRO_TRIAL' && now >= business.trialEndsAt) {
    business.edition = 'SUBSCRIPTION_FREE';
  }
  return business.edition;
}

/**
 * "While in SUBSCRIPTION_FREE a business may be deleted by the service": with a deletion delay
 * set (the spec reading: 30 days; none with `keep-free-businesses`), a business free for that long
 * is gone, with its install, the next time anyone looks. Like the trial expiry, it is applied lazily.
 */
export function deleteLapsedBusinesses(state: SandboxState): void {
  const days = state.mode.freeBusinessDeletionDays();
  if (days === null) return;
  const now = state.clock.now();
  for (const business of [...state.businesses.values()]) {
    if (currentEdition(business, now) !== 'SUBSCRIPTION_FREE') continue;
    const freeSince = business.cancelledAt ?? business.trialEndsAt;
    if (now >= freeSince + days * DAY_MS) {
      state.businesses.delete(business.hostname);
      state.installs.delete(business.hostname);
    }
  }
}

/** A provisioning root the service does not run (by default UK and AU, "in development"). */
export function assertRegionRuns(state: SandboxState, path: string): void {
  const region = regionOf(/^\/regions\/(uk|au)(?:\/|$)/.exec(path)?.[1]);
  if (state.mode.regionRuns(region)) return;
  throw new ApiError(
    503,
    'REGION_NOT_RUNNING',
    `the ${region.toUpperCase()} provisioning region is not running (only ${state.mode.regions().join(', ') || 'no region'} is)`,
  );
}

function hostnameFor(state: SandboxState, portfolioName: string, region: Region): string {
  const slug =
    portfolioName
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 20) || 'business';
  state.hostnameCounter += 1;
  return `${slug}-${state.hostnameCounter}.${region}.sandbox.test`;
}

function parseEmployeeCount(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' && typeof value !== 'string') {
    throw invalid('businessData.estimatedEmployeeCount must be an integer');
  }
  // The spec's sample sends the count as a string, so numeric strings are accepted too.
  const count = typeof value === 'number' ? value : value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isInteger(count) || count <= 0) {
    throw new ApiError(
      422,
      'INVALID_EMPLOYEE_COUNT',
      'estimatedEmployeeCount must be an integer greater than 0',
    );
  }
  return count;
}

function signup(context: ProvisioningContext, params: string[]): SandboxResponse {
  const { state } = context;
  const region = regionOf(params[0]);
  const partner = params[1] ?? '';
  const body = requireBodyObject(context.body);
  const userData = requiredObject(body, 'userData');
  const businessData = requiredObject(body, 'businessData');
  const firstName = requiredString(userData, 'firstName', 'userData.firstName');
  const lastName = requiredString(userData, 'lastName', 'userData.lastName');
  const email = requiredString(userData, 'email', 'userData.email').trim();
  const mobileNumber = optionalString(userData, 'mobileNumber', 'userData.mobileNumber');
  const externalId = requiredString(businessData, 'externalId', 'businessData.externalId');
  const portfolioName = requiredString(businessData, 'portfolioName', 'businessData.portfolioName');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw invalid('userData.email must be an e-mail address');

  const businesses = [...state.businesses.values()];
  if (businesses.some((business) => business.email.toLowerCase() === email.toLowerCase())) {
    throw new ApiError(409, 'EMAIL_ALREADY_EXISTS', 'The e-mail address already belongs to an account');
  }
  if (mobileNumber !== undefined && !MOBILE_PATTERN.test(mobileNumber.replace(/[\s-]/g, ''))) {
    throw new ApiError(422, 'INVALID_MOBILE_NUMBER', 'mobileNumber is not a valid mobile number');
  }
  if (businesses.some((business) => business.partner === partner && business.externalId === externalId)) {
    throw new ApiError(409, 'EXTERNAL_ID_NOT_UNIQUE', 'externalId has already been used');
  }
  const estimatedEmployeeCount = parseEmployeeCount(businessData['estimatedEmployeeCount']);

  const now = state.clock.now();
  const hostname = hostnameFor(state, portfolioName, region);
  const business: Business = {
    hostname,
    partner,
    region,
    externalId,
    portfolioName,
    email,
    firstName,
    lastName,
    mobileNumber: mobileNumber ?? null,
    estimatedEmployeeCount,
    edition: 'SUBSCRIPTION_PRO_TRIAL',
    createdAt: now,
    trialEndsAt: now + TRIAL_DAYS * DAY_MS,
    cancelledAt: null,
    billingAddress: null,
  };
  state.businesses.set(hostname, business);
  state.installs.set(
    hostname,
    createInstall(hostname, region, {
      readings: SEED_READINGS.filter((reading) => state.mode.lenient(reading)),
    }),
  );
  return provisioningEnvelope({
    hostname,
    portfolioName,
    status: 'ACTIVE',
    edition: business.edition,
    trialEndDate: toIsoOffset(business.trialEndsAt),
    conversionDate: '',
    externalId,
  });
}

/** A partner only sees businesses it created through the same regional root. */
function linkedBusiness(state: SandboxState, region: Region, partner: string, hostname: string): Business {
  const business = state.businesses.get(hostname);
  if (!business || business.partner !== partner || business.region !== region) {
    throw new ApiError(
      403,
      state.mode.notLinkedErrorCode(),
      `hostname ${hostname} is not linked to partner ${partner}`,
    );
  }
  return business;
}

function hasAddress(address: JsonObject): boolean {
  return Object.values(address).some((value) => typeof value === 'string' && value.trim() !== '');
}

function changePlan(context: ProvisioningContext, params: string[]): SandboxResponse {
  const { state } = context;
  const region = regionOf(params[0]);
  const partner = params[1] ?? '';
  const body = requireBodyObject(context.body);
  const data = requiredObject(body, 'data');
  const hostname = requiredString(data, 'hostname', 'data.hostname');
  const action = requiredString(data, 'action', 'data.action');
  if (action !== 'upgrade' && action !== 'cancel') throw invalid('data.action must be upgrade or cancel');
  const address = data['address'];
  if (address !== undefined && address !== null && !isObject(address)) {
    throw invalid('data.address must be an object');
  }

  const business = linkedBusiness(state, region, partner, hostname);
  const edition = currentEdition(business, state.clock.now());
  if (action === 'upgrade') {
    if (edition === 'SUBSCRIPTION_PAID_PRO_PREMIUM') {
      throw new ApiError(409, 'ALREADY_PREMIUM', 'The business is already on the paid premium plan');
    }
    // Billing address is a US compliance rule; an object with no filled field does not satisfy it.
    if (business.region === 'us' && !(isObject(address) && hasAddress(address))) {
      throw new ApiError(422, 'ADDRESS_REQUIRED', 'data.address is required to convert a US business');
    }
    business.edition = 'SUBSCRIPTION_PAID_PRO_PREMIUM';
    business.cancelledAt = null;
    if (isObject(address)) business.billingAddress = { ...address };
  } else {
    if (edition !== 'SUBSCRIPTION_PAID_PRO_PREMIUM') {
      throw new ApiError(409, 'CANNOT_CANCEL', 'Only a paid premium subscription can be cancelled');
    }
    business.edition = 'SUBSCRIPTION_FREE';
    business.cancelledAt = state.clock.now();
    // The cancel answer is "not shown"; the sandbox answers success without data (unless `cancel-answer`).
    if (!state.mode.lenient('cancel-answer')) return provisioningEnvelope(null);
  }
  return provisioningEnvelope({
    hostname,
    trialEndDate: toIsoOffset(business.trialEndsAt),
    edition: business.edition,
  });
}

function subscriptionStatus(context: ProvisioningContext, params: string[]): SandboxResponse {
  const { state } = context;
  const body = requireBodyObject(context.body);
  const hostname = requiredString(body, 'hostname');
  const business = linkedBusiness(state, regionOf(params[0]), params[1] ?? '', hostname);
  return provisioningEnvelope({
    status: 'ACTIVE',
    hostname,
    portfolioName: business.portfolioName,
    edition: currentEdition(business, state.clock.now()),
    trialEndDate: toIsoOffset(business.trialEndsAt),
    conversionDate: '',
  });
}

const ROOT = '^(?:/regions/(uk|au))?/connect/v1/partner/([^/]+)';

export const provisioningRoutes: ReadonlyArray<Route<ProvisioningContext>> = [
  { method: 'POST', pattern: new RegExp(`${ROOT}/signup$`), handle: signup },
  { method: 'POST', pattern: new RegExp(`${ROOT}/change-plan$`), handle: changePlan },
  { method: 'POST', pattern: new RegExp(`${ROOT}/subscription-status$`), handle: subscriptionStatus },
];
