import * as z from 'zod';
import type { ServiceClientConfig } from './client.ts';
import type { SignupDuplicateRejections } from './provisioning.ts';

/**
 * What the client assumes where the service's spec says "not shown", as one deploy setting
 * (`serviceAssumptions` in the deployment config, `SERVICE_ASSUMPTIONS` for the functions): the
 * defaults are the readings the sandbox implements; a deployment against the real service changes
 * one without a code change. docs/internals.md, "Open behaviours", lists each with why.
 */

/**
 * The readings the sandbox implements: what a deployment assumes unless its `serviceAssumptions`
 * say otherwise. The schema below defaults each field to its value here.
 */
const DEFAULTS = {
  signupDuplicateCodes: ['EXTERNAL_ID_NOT_UNIQUE', 'EMAIL_ALREADY_EXISTS'],
  signupDuplicateMessagePatterns: ['external\\s*id.*(not unique|already|exists|in use|duplicate)'],
  hostnameNotLinkedCodes: ['HOSTNAME_NOT_LINKED'],
  hostnameNotLinkedStatuses: [],
  hostnameNotLinkedMessagePatterns: ['\\bnot linked\\b'],
  uncodedStatusReadings: { '401': 'token-refused', '403': 'not-linked', '404': 'refusal' },
  installAuth: 'bearer',
  agreedHourCycleSpelling: 'per-form',
  agreementIdFields: ['AgreementId', 'agreementId', 'Id', 'id'],
  locationIdFields: ['Id', 'id', 'CompanyId', 'companyId'],
  areaIdFields: ['Id', 'id', 'OperationalUnitId', 'DepartmentId'],
  contractResource: 'EmploymentContract',
  payRuleResource: 'PayRule',
  basePayRuleFields: ['BasePayRule'],
  leaveRuleResource: 'LeaveRule',
  queryMaxRecords: null,
  timesheetResource: 'Timesheet',
  timesheetDateField: 'Date',
  recordResources: {
    Timesheet: 'Timesheet',
    Employee: 'Employee',
    Company: 'Company',
    OperationalUnit: 'OperationalUnit',
    EmployeeAgreement: 'EmployeeAgreement',
    PayRule: 'PayRule',
  },
  timesheetFieldPath: '/api/v1/resource/CustomField',
  timesheetFieldResource: 'CustomField',
  timesheetFieldIdFields: ['Id', 'id'],
  employeesBulkPath: '/api/management/v2/employees:bulk',
  employeesBulkBody: 'agreement-and-ids',
} as const;

const names = (fallback: readonly string[]) =>
  z
    .array(z.string().min(1))
    .min(1)
    .default([...fallback]);

const resource = () =>
  z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, { error: 'expected a resource name (letters, digits, "_")' });

const resourceName = (fallback: string) => resource().default(fallback);

/** A path below the install base URL: no scheme, host, query or `..`, so it cannot leave the install. */
const installPath = (fallback: string) =>
  z
    .string()
    .regex(/^(\/[A-Za-z0-9_.:~-]+)+$/, { error: 'expected a path such as /api/v1/resource/Name' })
    .refine((path) => !path.split('/').some((segment) => segment === '..' || segment === '.'), {
      error: 'expected a path without . or .. segments',
    })
    .default(fallback);

const regexSource = () =>
  z.string().refine(
    (source) => {
      try {
        new RegExp(source, 'i');
        return true;
      } catch {
        return false;
      }
    },
    { error: 'expected a regular expression' },
  );

/** How an answer without a service error code is read (uncodedStatusReadings). */
export const UNCODED_READINGS = ['token-refused', 'not-linked', 'retry', 'refusal'] as const;
export type UncodedReading = (typeof UNCODED_READINGS)[number];
const uncodedReading = z.enum(UNCODED_READINGS);

/** The deploy setting's schema; a deployment that sets no assumptions uses the defaults above. */
export const serviceAssumptionsSchema = z.strictObject({
  /**
   * Codes of a follow-up signup's refusal that prove the first, unanswered attempt committed (the
   * spec names the conditions, not the codes): the e-mail and externalId duplicates.
   */
  signupDuplicateCodes: names(DEFAULTS.signupDuplicateCodes),
  /** The same, matched on the refusal's message (case-insensitive regular expressions). */
  signupDuplicateMessagePatterns: z
    .array(regexSource())
    .default([...DEFAULTS.signupDuplicateMessagePatterns]),
  /**
   * Codes of a subscription-status refusal that mean the hostname is no longer linked to the
   * partner (the spec names the condition, "hostname is not linked to the calling partner", not
   * the code): the drift watch reads them as the service having deleted the business
   * (BusinessGone). Any other refusal is a failed check, tried again on the next run.
   */
  hostnameNotLinkedCodes: names(DEFAULTS.hostnameNotLinkedCodes),
  /**
   * HTTP statuses of a subscription-status refusal that mean the same, whatever its code (e.g.
   * 404 or 410 when the real service answers a deleted business so). Default none: the sandbox
   * names the condition by its code.
   */
  hostnameNotLinkedStatuses: z
    .array(z.int().min(400).max(499))
    .default([...DEFAULTS.hostnameNotLinkedStatuses]),
  /**
   * The same, matched on the refusal's message (case-insensitive regular expressions). Default:
   * "not linked", the words of the spec's condition and of the sandbox's message.
   */
  hostnameNotLinkedMessagePatterns: z
    .array(regexSource())
    .default([...DEFAULTS.hostnameNotLinkedMessagePatterns]),
  /**
   * How an answer of 401, 403 or 404 that carries no service error code is read (the spec shows
   * no statuses): `token-refused` (the bearer token was refused: the cached token is dropped and
   * records wait for a fixed token without using attempts), `not-linked` (the service refuses
   * this hostname for this partner: a refusal with code HOSTNAME_NOT_LINKED, SyncFailed at once,
   * and BusinessGone for the drift watch), `retry` (not processed: retried like a 503, creates
   * included) or `refusal` (a refusal like any other 4xx: SyncFailed SERVICE_REJECTED). The
   * defaults read each as the sandbox means its coded answer of that status: 401 UNAUTHORIZED,
   * 403 HOSTNAME_NOT_LINKED, 404 NOT_FOUND.
   */
  uncodedStatusReadings: z
    .strictObject({
      '401': uncodedReading.default(DEFAULTS.uncodedStatusReadings['401']),
      '403': uncodedReading.default(DEFAULTS.uncodedStatusReadings['403']),
      '404': uncodedReading.default(DEFAULTS.uncodedStatusReadings['404']),
    })
    .default({ ...DEFAULTS.uncodedStatusReadings }),
  /**
   * How install API calls authenticate ("not shown"): the provisioning bearer token, or nothing
   * (an install reached through a network the partner controls).
   */
  installAuth: z.enum(['bearer', 'none']).default(DEFAULTS.installAuth),
  /** Agreed-hour cycle spelling: each form's own (`per-form`), or one spelling for both. */
  agreedHourCycleSpelling: z
    .enum(['per-form', 'full-form', 'simple-form'])
    .default(DEFAULTS.agreedHourCycleSpelling),
  /** Fields of setAwardFromLibrary's answer tried, in order, for the new agreement id. */
  agreementIdFields: names(DEFAULTS.agreementIdFields),
  /** Fields of the create-location answer tried for the new location id. */
  locationIdFields: names(DEFAULTS.locationIdFields),
  /** Fields of the create-area answer tried for the new area id. */
  areaIdFields: names(DEFAULTS.areaIdFields),
  /** QUERY resource of employment contracts (the spec names the record, not the resource). */
  contractResource: resourceName(DEFAULTS.contractResource),
  /** QUERY resource of pay rules. */
  payRuleResource: resourceName(DEFAULTS.payRuleResource),
  /** Fields of a contract tried, in order, for its base pay rule id. */
  basePayRuleFields: names(DEFAULTS.basePayRuleFields),
  /** QUERY resource of leave rules (its use is implied by leave accrual). */
  leaveRuleResource: resourceName(DEFAULTS.leaveRuleResource),
  /**
   * Most records one QUERY answers ("not shown", and the spec shows no paging). Unset: no limit
   * is assumed. Set: a read that must see every record (the custom-field slot scan, an install's
   * agreements, leave rules, countries, states) and gets this many fails with QUERY_LIMIT_REACHED
   * rather than act on a list that may have been cut.
   */
  queryMaxRecords: z.int().min(1).nullable().default(DEFAULTS.queryMaxRecords),
  /**
   * QUERY resource of timesheets ("reading timesheets" is named without a path): PayReturnsRequested
   * by period reads the timesheets of the period from it.
   */
  timesheetResource: resourceName(DEFAULTS.timesheetResource),
  /**
   * The timesheet field holding its date (`Date` in the spec's TimesheetObject; its format is not
   * shown): a period is read with `lk` on its `YYYY-MM-` (or `YYYY-MM-DD`) prefix, and each answer's
   * date is its first ten characters.
   */
  timesheetDateField: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'expected a field name' })
    .default(DEFAULTS.timesheetDateField),
  /**
   * RecordsRequested: the resources a partner may read, each with the QUERY resource that holds it
   * (the spec names reading timesheets, employees, locations, areas, agreements and pay rules,
   * without a path). Keys are what partners send; any other is refused naming these.
   */
  recordResources: z
    .record(resource(), resource())
    .refine((map) => Object.keys(map).length > 0, { error: 'at least one resource' })
    .default({ ...DEFAULTS.recordResources }),
  /**
   * Path (below the install base URL) of the call creating a timesheet custom field definition
   * (the spec shows its payload, "The path of this call: not shown"); POSTed.
   */
  timesheetFieldPath: installPath(DEFAULTS.timesheetFieldPath),
  /** QUERY resource listing custom field definitions (read with `System` eq `Timesheet`). */
  timesheetFieldResource: resourceName(DEFAULTS.timesheetFieldResource),
  /** Fields of a definition record tried, in order, for its id. */
  timesheetFieldIdFields: names(DEFAULTS.timesheetFieldIdFields),
  /**
   * Path of the bulk assignment of an agreement ("an `employees:bulk` endpoint under the
   * management v2 path"; request and response not shown); POSTed.
   */
  employeesBulkPath: installPath(DEFAULTS.employeesBulkPath),
  /**
   * Its body: `agreement-and-ids` = `{agreementId, employeeIds}`; `items` = `{data: [{employeeId,
   * agreementId}]}` (the shape of the metrics calls).
   */
  employeesBulkBody: z.enum(['agreement-and-ids', 'items']).default(DEFAULTS.employeesBulkBody),
});

export type ServiceAssumptions = z.output<typeof serviceAssumptionsSchema>;
export type ServiceAssumptionsInput = z.input<typeof serviceAssumptionsSchema>;

/**
 * What a deployment that sets no assumptions uses: the schema's reading of `{}`. Shared by every
 * reader, so frozen through and through (its lists too).
 */
export const defaultServiceAssumptions = Object.freeze(
  Object.fromEntries(
    Object.entries(DEFAULTS).map(([key, value]) => [
      key,
      Array.isArray(value)
        ? Object.freeze([...value])
        : typeof value === 'object' && value !== null
          ? Object.freeze({ ...value })
          : value,
    ]),
  ),
) as unknown as ServiceAssumptions;

/** How the HTTP layer reads 401/403/404 without a service code, per status. */
export type UncodedStatusReadings = ServiceAssumptions['uncodedStatusReadings'];

/**
 * Whether a subscription-status refusal means the hostname is no longer linked to the partner
 * (the drift watch's BusinessGone), and the reason to give: the service's code, or `HTTP <status>`
 * when it sent none. Recognised by a named code, a named HTTP status, or a pattern on the
 * service's own message. An answer without a code that the HTTP layer reads as not linked
 * (uncodedStatusReadings) is not enough alone: announcing a business gone cannot be undone, so
 * it needs the deployment to name its status here too.
 */
export function hostnameNotLinkedReason(
  error: { code: string; status?: number; serviceCode?: string; serviceMessage?: string },
  assumptions: ServiceAssumptions,
): string | undefined {
  const reason = error.serviceCode ?? (error.status === undefined ? error.code : `HTTP ${error.status}`);
  if (error.serviceCode !== undefined && assumptions.hostnameNotLinkedCodes.includes(error.serviceCode)) {
    return reason;
  }
  if (error.status !== undefined && assumptions.hostnameNotLinkedStatuses.includes(error.status))
    return reason;
  return notLinkedMessagePatternsMatching(error.serviceMessage, assumptions).length > 0 ? reason : undefined;
}

/** The configured not-linked message patterns (case-insensitive) the service's message matches. */
export function notLinkedMessagePatternsMatching(
  message: string | undefined,
  assumptions: ServiceAssumptions,
): string[] {
  if (message === undefined) return [];
  return assumptions.hostnameNotLinkedMessagePatterns.filter((source) =>
    new RegExp(source, 'i').test(message),
  );
}

/** Which refusals of a follow-up signup prove the first attempt committed, as the client reads them. */
export function signupDuplicateRejectionsOf(assumptions: ServiceAssumptions): SignupDuplicateRejections {
  return {
    codes: [...assumptions.signupDuplicateCodes],
    messagePatterns: assumptions.signupDuplicateMessagePatterns.map((source) => new RegExp(source, 'i')),
  };
}

/** The parts of the service client's configuration the assumptions decide. */
export function serviceClientAssumptions(
  assumptions: ServiceAssumptions,
): Pick<ServiceClientConfig, 'signupDuplicateRejections' | 'install' | 'uncodedStatusReadings'> {
  return {
    signupDuplicateRejections: signupDuplicateRejectionsOf(assumptions),
    uncodedStatusReadings: { ...assumptions.uncodedStatusReadings },
    install: {
      auth: assumptions.installAuth,
      cycleSpelling: assumptions.agreedHourCycleSpelling,
      agreementIdFields: [...assumptions.agreementIdFields],
      locationIdFields: [...assumptions.locationIdFields],
      areaIdFields: [...assumptions.areaIdFields],
      leaveRuleResource: assumptions.leaveRuleResource,
      ...(assumptions.queryMaxRecords === null ? {} : { queryMaxRecords: assumptions.queryMaxRecords }),
      assumedCalls: {
        timesheetFieldPath: assumptions.timesheetFieldPath,
        timesheetFieldResource: assumptions.timesheetFieldResource,
        timesheetFieldIdFields: [...assumptions.timesheetFieldIdFields],
        employeesBulkPath: assumptions.employeesBulkPath,
        employeesBulkBody: assumptions.employeesBulkBody,
      },
      payRate: {
        contractResource: assumptions.contractResource,
        payRuleResource: assumptions.payRuleResource,
        basePayRuleFields: [...assumptions.basePayRuleFields],
      },
    },
  };
}
