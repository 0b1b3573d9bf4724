import {
  OutcomeUnknownError,
  ResponseShapeError,
  ServiceRejectedError,
  SignupOutcomeLostError,
} from '#functions/domain/errors.ts';
import type { Addresses, Region } from './addresses.ts';
import { defaultServiceAssumptions, signupDuplicateRejectionsOf } from './assumptions.ts';
import type { HttpClient, RetrySafety } from './http.ts';
import { readServiceError } from './http.ts';
import { parseResponse } from './parsing.ts';
import {
  type BillingAddress,
  type BusinessData,
  type ChangePlanResult,
  changePlanResultSchema,
  type ProvisionedBusiness,
  provisionedBusinessSchema,
  provisioningEnvelopeSchema,
  type SubscriptionStatus,
  subscriptionStatusSchema,
  type UserData,
} from './records/provisioning.ts';

/**
 * Rejections of a follow-up signup that prove the first (ambiguous) attempt committed. The
 * duplicate e-mail is included because a service that checks the e-mail before the externalId
 * (the sandbox does) answers the follow-up with it; see docs/client.md "Signup rule".
 */
export interface SignupDuplicateRejections {
  codes: string[];
  messagePatterns: RegExp[];
}

/** The defaults of `serviceAssumptions` (assumptions.ts), their one source. */
const defaultSignupDuplicateRejections: SignupDuplicateRejections =
  signupDuplicateRejectionsOf(defaultServiceAssumptions);

/** Whether `error` is a signup refusal these rejections read as "the first attempt committed". */
function isSignupDuplicateRejection(
  error: unknown,
  duplicates: SignupDuplicateRejections,
): error is ServiceRejectedError {
  if (!(error instanceof ServiceRejectedError)) return false;
  if (error.serviceCode !== undefined && duplicates.codes.includes(error.serviceCode)) return true;
  return duplicates.messagePatterns.some((pattern) => pattern.test(error.message));
}

export interface SignupRequest {
  userData: UserData;
  businessData: BusinessData;
  /** Region whose provisioning root is called; the business is created there. @default 'US' */
  region?: Region;
  /**
   * An earlier attempt (another invocation) may have committed this signup, so a duplicate
   * refusal of this very first attempt already proves it did (SignupOutcomeLostError).
   * @default false
   */
  earlierAttemptMayHaveCommitted?: boolean;
}

export type ChangePlanRequest =
  | { hostname: string; action: 'upgrade'; address?: BillingAddress; region?: Region }
  | { hostname: string; action: 'cancel'; region?: Region };

export interface ProvisioningClient {
  signup(request: SignupRequest): Promise<ProvisionedBusiness>;
  changePlan(request: ChangePlanRequest): Promise<ChangePlanResult>;
  upgrade(hostname: string, address?: BillingAddress, region?: Region): Promise<ChangePlanResult>;
  cancel(hostname: string, region?: Region): Promise<ChangePlanResult>;
  subscriptionStatus(hostname: string, region?: Region): Promise<SubscriptionStatus>;
}

export interface ProvisioningDependencies {
  http: HttpClient;
  addresses: Addresses;
  signupDuplicateRejections?: SignupDuplicateRejections;
}

export function createProvisioningClient(dependencies: ProvisioningDependencies): ProvisioningClient {
  const { http, addresses } = dependencies;
  const duplicates = dependencies.signupDuplicateRejections ?? defaultSignupDuplicateRejections;

  async function call(
    region: Region,
    operation: 'signup' | 'change-plan' | 'subscription-status',
    body: unknown,
  ) {
    const safety: RetrySafety = operation === 'subscription-status' ? 'idempotent' : 'create';
    // Throws RegionNotAvailableError before any request when the region has no root.
    const url = addresses.provisioningUrl(region, operation);
    const response = await http.send({
      method: 'POST',
      url,
      body,
      safety,
      scope: { kind: 'provisioning', region },
    });
    return unwrapEnvelope(response.body, operation);
  }

  async function signup(request: SignupRequest): Promise<ProvisionedBusiness> {
    const region = request.region ?? 'US';
    const body = { userData: request.userData, businessData: request.businessData };
    const attempt = async () =>
      parseResponse(provisionedBusinessSchema, await call(region, 'signup', body), 'signup');
    const committedEarlier = (rejection: ServiceRejectedError) =>
      new SignupOutcomeLostError(request.businessData.externalId, {
        status: rejection.status,
        serviceCode: rejection.serviceCode,
        cause: rejection,
      });
    try {
      return await attempt();
    } catch (error) {
      if (request.earlierAttemptMayHaveCommitted === true && isSignupDuplicateRejection(error, duplicates)) {
        throw committedEarlier(error);
      }
      if (!(error instanceof OutcomeUnknownError)) throw error;
      // One follow-up: externalId is unique, so the service itself tells us whether the
      // first attempt committed. Never more than one, never blind.
      try {
        return await attempt();
      } catch (followUpError) {
        if (isSignupDuplicateRejection(followUpError, duplicates)) throw committedEarlier(followUpError);
        throw followUpError;
      }
    }
  }

  async function changePlan(request: ChangePlanRequest): Promise<ChangePlanResult> {
    addresses.assertHostname(request.hostname);
    const data: Record<string, unknown> = { hostname: request.hostname, action: request.action };
    if (request.action === 'upgrade' && request.address !== undefined) data.address = request.address;
    const payload = await call(request.region ?? 'US', 'change-plan', { data });
    // The cancel answer is "not shown": an empty or null data is accepted as success.
    return parseResponse(changePlanResultSchema, payload ?? {}, `change-plan ${request.action}`);
  }

  return {
    signup,
    changePlan,
    upgrade: (hostname, address, region) =>
      changePlan(
        address === undefined
          ? { hostname, action: 'upgrade', region }
          : { hostname, action: 'upgrade', address, region },
      ),
    cancel: (hostname, region) => changePlan({ hostname, action: 'cancel', region }),
    async subscriptionStatus(hostname, region) {
      addresses.assertHostname(hostname);
      // The spec puts hostname at the top level here (not wrapped in data).
      const payload = await call(region ?? 'US', 'subscription-status', { hostname });
      return parseResponse(subscriptionStatusSchema, payload, 'subscription-status');
    },
  };
}

function unwrapEnvelope(body: unknown, operation: string): unknown {
  const result = provisioningEnvelopeSchema.safeParse(body);
  if (!result.success) {
    throw new ResponseShapeError(
      `${operation}: the answer is not the provisioning envelope {success, data, error}`,
    );
  }
  if (!result.data.success) {
    const { serviceCode, serviceMessage } = readServiceError(result.data);
    throw new ServiceRejectedError(serviceMessage ?? `${operation} was refused by the service`, {
      serviceCode,
      ...(serviceMessage === undefined ? {} : { serviceMessage }),
    });
  }
  return result.data.data;
}
