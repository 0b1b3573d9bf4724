import * as z from 'zod';
import { ResponseShapeError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { firstId } from './parsing.ts';
import type { EmployeeAgreement } from './records/pay-conditions.ts';

/**
 * The pay-rate rule of an employee agreement: its BaseRate where that applies (US installs with
 * the newer system), otherwise the HourlyRate of its employment contract's base pay rule; each
 * contract and pay rule is read once per resolver (the install client's payRateResolver builds one).
 */

export interface PayRateResolutionOptions {
  /** Resource holding employment contracts (its name is not shown in the spec). @default 'EmploymentContract' */
  contractResource?: string;
  /** Resource holding pay rules. @default 'PayRule' */
  payRuleResource?: string;
  /** Fields of the contract tried, in order, for its base pay rule id. @default ['BasePayRule'] */
  basePayRuleFields?: string[];
}

export type PayRate =
  | { source: 'BaseRate'; hourlyRate: number }
  | { source: 'PayRule'; hourlyRate: number; contractId: number; payRuleId: string | number };

/** Where the pay-rate rule ran out of data (the spec shows only the happy path). */
export type UnresolvedPayRateCode =
  | 'NO_CONTRACT'
  | 'CONTRACT_NOT_FOUND'
  | 'NO_BASE_PAY_RULE'
  | 'PAY_RULE_NOT_FOUND'
  | 'NO_HOURLY_RATE'
  | 'LOOKUP_REFUSED'
  | 'LOOKUP_UNREADABLE';

export type PayRateResolution =
  | { resolved: true; rate: PayRate }
  | {
      resolved: false;
      code: UnresolvedPayRateCode;
      /** Names the agreement, contract and pay rule ids involved; never a service message. */
      reason: string;
      contractId?: number;
      payRuleId?: string | number;
    };

/**
 * The pay-rate rule for many agreements at once: each employment contract and each pay rule is
 * read at most once per resolver, however many agreements share it. Where the data ends (no
 * contract, a lookup finding nothing or refused) the agreement is `resolved: false` with the
 * reason; retryable failures (429, 5xx, timeouts) are thrown, as a retry can cure them.
 */
export interface PayRateResolver {
  resolve(agreement: EmployeeAgreement): Promise<PayRateResolution>;
}

export interface PayRateResolverOptions {
  /**
   * Whether a numeric BaseRate is the rate. The spec's rule (BaseRate overrides the contract) is
   * for US installs with the newer system only; elsewhere pass false and every rate comes through
   * the contract. @default true
   */
  baseRateApplies?: boolean;
}

const contractRecordSchema = z.looseObject({ Id: z.union([z.number(), z.string()]) });
const payRuleRecordSchema = z.looseObject({
  Id: z.union([z.number(), z.string()]),
  HourlyRate: z.number().nullable().optional(),
});

type LookupById = <T extends z.ZodType>(
  resource: string,
  id: string | number,
  schema: T,
) => Promise<z.output<T> | undefined>;

/** One memoized lookup: the record, nothing found, or a refusal the rule reports instead of failing. */
type Lookup<T> =
  | { kind: 'found'; record: T }
  | { kind: 'missing' }
  | { kind: 'refused'; serviceCode?: string }
  | { kind: 'unreadable' };

export function createPayRateResolver(
  lookupById: LookupById,
  settings: {
    contractResource: string;
    payRuleResource: string;
    basePayRuleFields: readonly string[];
    baseRateApplies: boolean;
  },
): PayRateResolver {
  // Promises, not results: agreements resolved concurrently share one request per record.
  const contracts = new Map<string, Promise<Lookup<z.output<typeof contractRecordSchema>>>>();
  const payRules = new Map<string, Promise<Lookup<z.output<typeof payRuleRecordSchema>>>>();

  function memoized<T extends z.ZodType>(
    cache: Map<string, Promise<Lookup<z.output<T>>>>,
    resource: string,
    id: string | number,
    schema: T,
  ): Promise<Lookup<z.output<T>>> {
    const key = `${typeof id}:${id}`;
    let pending = cache.get(key);
    if (!pending) {
      pending = lookupById(resource, id, schema).then(
        (record): Lookup<z.output<T>> =>
          record === undefined ? { kind: 'missing' } : { kind: 'found', record },
        (error: unknown): Lookup<z.output<T>> => {
          // A refusal or an unreadable answer is where the data ends for this record; anything
          // retryable fails the whole read, which a retry can cure.
          if (error instanceof ServiceRejectedError) {
            return error.serviceCode === undefined
              ? { kind: 'refused' }
              : { kind: 'refused', serviceCode: error.serviceCode };
          }
          if (error instanceof ResponseShapeError) return { kind: 'unreadable' };
          throw error;
        },
      );
      cache.set(key, pending);
    }
    return pending;
  }

  const failedLookup = (
    lookup: { kind: 'refused'; serviceCode?: string } | { kind: 'unreadable' },
    what: string,
  ): { code: UnresolvedPayRateCode; reason: string } =>
    lookup.kind === 'refused'
      ? {
          code: 'LOOKUP_REFUSED',
          reason: `the service refused the lookup of ${what}${lookup.serviceCode ? ` (${lookup.serviceCode})` : ''}`,
        }
      : { code: 'LOOKUP_UNREADABLE', reason: `the answer to the lookup of ${what} could not be read` };

  return {
    async resolve(agreement) {
      const baseRate = agreement.BaseRate;
      // Rule 1 (US installs): a numeric BaseRate overrides the employment contract.
      if (settings.baseRateApplies && typeof baseRate === 'number') {
        return { resolved: true, rate: { source: 'BaseRate', hourlyRate: baseRate } };
      }
      // Rule 2: Contract → employment contract → its base pay rule → the pay rule's HourlyRate.
      const contractId = agreement.Contract;
      if (typeof contractId !== 'number' || contractId <= 0) {
        const ignoredBaseRate =
          typeof baseRate === 'number' ? ' (its BaseRate does not apply: the rule is for US installs)' : '';
        return {
          resolved: false,
          code: 'NO_CONTRACT',
          reason: `agreement ${agreement.Id} has no Contract${settings.baseRateApplies ? ' and no BaseRate' : ignoredBaseRate}`,
        };
      }
      const contractName = `employment contract ${contractId}`;
      const contract = await memoized(contracts, settings.contractResource, contractId, contractRecordSchema);
      if (contract.kind === 'missing') {
        return {
          resolved: false,
          code: 'CONTRACT_NOT_FOUND',
          reason: `${contractName} of agreement ${agreement.Id} was not found (${settings.contractResource})`,
          contractId,
        };
      }
      if (contract.kind !== 'found')
        return { resolved: false, ...failedLookup(contract, contractName), contractId };
      const payRuleId = firstId(contract.record, settings.basePayRuleFields);
      if (payRuleId === undefined) {
        return {
          resolved: false,
          code: 'NO_BASE_PAY_RULE',
          reason: `${contractName} has no base pay rule (looked for ${settings.basePayRuleFields.join(', ')})`,
          contractId,
        };
      }
      const payRuleName = `pay rule ${payRuleId} of ${contractName}`;
      const payRule = await memoized(payRules, settings.payRuleResource, payRuleId, payRuleRecordSchema);
      if (payRule.kind === 'missing') {
        return {
          resolved: false,
          code: 'PAY_RULE_NOT_FOUND',
          reason: `${payRuleName} was not found (${settings.payRuleResource})`,
          contractId,
          payRuleId,
        };
      }
      if (payRule.kind !== 'found') {
        return { resolved: false, ...failedLookup(payRule, payRuleName), contractId, payRuleId };
      }
      if (typeof payRule.record.HourlyRate !== 'number') {
        return {
          resolved: false,
          code: 'NO_HOURLY_RATE',
          reason: `${payRuleName} has no HourlyRate`,
          contractId,
          payRuleId,
        };
      }
      return {
        resolved: true,
        rate: { source: 'PayRule', hourlyRate: payRule.record.HourlyRate, contractId, payRuleId },
      };
    },
  };
}
