import { randomUUID } from 'node:crypto';
import type {
  ReferenceDataRequestedDetail,
  ReferenceKind,
} from '#functions/contracts/inbound/reference-data-requested.ts';
import {
  type AwardEntry,
  type CountryEntry,
  countryEntry,
  type LeaveRuleEntry,
  type ReferenceDataDetail,
  type StateEntry,
  stateEntry,
} from '#functions/contracts/outbound/reference-data.ts';
import { PermanentError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { provisionedBusinessOf } from '#functions/domain/provisioned-business.ts';
import { serviceRejection } from '#functions/domain/service-rejection.ts';
import type { OutboundEvent } from '#functions/publisher/publisher.ts';
import { detailRoomBytes, splitIntoParts } from '#functions/publisher/split-answer.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import type { UseCaseInput } from '#functions/runtime/use-case.ts';
import type { InstallClient } from '#functions/service/install.ts';
import type { LeaveRuleRecord } from '#functions/service/records/leave.ts';
import { recordSyncSuccess } from '#functions/store/business.ts';
import {
  getCachedReferenceList,
  putCachedReferenceList,
  type ReferenceCacheKind,
} from '#functions/store/reference-cache.ts';
import type { Store } from '#functions/store/store.ts';

const DETAIL_TYPE = 'ReferenceData';

/** The runtime fills causationId with the inbound event id. */
type AnswerDetail = Omit<ReferenceDataDetail, 'causationId'>;

/** The country code asked for is none of the install's countries: no retry changes that. */
export class UnknownCountryError extends PermanentError {
  constructor(countryCode: string) {
    super(
      'UNKNOWN_COUNTRY',
      `country code ${countryCode} is not one of the install's countries (QUERY Country)`,
    );
  }
}

/**
 * reportReferenceData — ReferenceDataRequested → the install's reference lists → ReferenceData.
 *
 * Input: the ReferenceDataRequested detail (accountId, kinds, countryCode with STATES, employeeId
 * with AGREED_HOURS).
 * Output: `ReferenceData` {hostname, kinds, countries?, states?, leaveRules?, awards?,
 * agreedHours?, asOf?, part, parts}: each list present exactly when its kind was asked for.
 *
 * Steps:
 * 1. Resolve the account's install from the table; no ACTIVE business → RetryableError.
 * 2. Read each kind asked for, side by side:
 *    - COUNTRIES and STATES from the table when read from the service less than
 *      REFERENCE_CACHE_MAX_AGE_SECONDS ago (the spec lets callers cache these ids and refresh them
 *      from time to time), else one QUERY, written back to the table. `asOf` says when each was
 *      read. STATES with a countryCode reads that country's states only (`Country eq id`, cached
 *      per country; the code is matched case-insensitively); a code the cached countries lack is
 *      looked for once more at the service, then → SyncFailed UNKNOWN_COUNTRY.
 *    - LEAVE_RULES: QUERY of the leave-rule resource (fields not shown: passed through as given).
 *    - AWARDS: listAwardsLibrary; each entry's library is read from its code (mixed-case
 *      alphanumeric: NEW, anything else: OLD).
 *    - AGREED_HOURS: the employee's agreed-hour profile, null when the service has none.
 *    A refusal → SyncFailed with the service's code; retryable failures retry the event whole.
 * 3. Split the lists over parts that each fit one EventBridge entry; agreedHours rides on part 1.
 */
export async function reportReferenceData(
  { event, detail }: UseCaseInput<ReferenceDataRequestedDetail>,
  { store, service, clock, config, logger }: Dependencies,
): Promise<OutboundEvent[]> {
  const business = await provisionedBusinessOf(store, detail.accountId);
  const install = service.install(business.hostname);
  const cache = {
    store,
    hostname: business.hostname,
    maxAgeSeconds: config.referenceCacheMaxAgeSeconds,
    now: () => clock.now(),
    onTooLarge: (kind: ReferenceCacheKind, bytes: number) =>
      logger.warn('reference list too large to cache; it is read from the service each time', {
        kind,
        bytes,
      }),
  };
  const asked = new Set<ReferenceKind>(detail.kinds);
  // STATES filtered by country needs the countries too: one read (or cache hit) serves both.
  let countriesRead: Promise<Cached<CountryEntry>> | undefined;
  const fetchCountries = async () =>
    (await readOrRefuse('reading countries', () => install.findCountries())).map(countryOf);
  const countries = () => {
    countriesRead ??= cachedList(cache, 'COUNTRIES', countryEntry.array(), fetchCountries);
    return countriesRead;
  };
  // The service read again (and the cache refreshed), for a country the cached list lacks.
  const readCountries = () =>
    cachedList(cache, 'COUNTRIES', countryEntry.array(), fetchCountries, { fresh: true });

  const [countryList, stateList, leaveRules, awards, agreedHours] = await Promise.all([
    asked.has('COUNTRIES') ? countries() : undefined,
    asked.has('STATES') ? statesOf(install, cache, countries, readCountries, detail.countryCode) : undefined,
    asked.has('LEAVE_RULES')
      ? readOrRefuse('reading leave rules', () => install.listLeaveRules()).then((rules) =>
          rules.map(leaveRuleOf),
        )
      : undefined,
    asked.has('AWARDS')
      ? readOrRefuse('reading the award library', () => install.listAwards()).then((entries) =>
          entries.map(
            (entry): AwardEntry => ({
              awardCode: entry.AwardCode,
              library: awardLibraryOf(entry.AwardCode),
              ...(entry.Name ? { name: entry.Name } : {}),
              ...(entry.Award ? { award: entry.Award } : {}),
              ...(entry.CountryCode ? { countryCode: entry.CountryCode } : {}),
            }),
          ),
        )
      : undefined,
    asked.has('AGREED_HOURS') && detail.employeeId !== undefined
      ? agreedHoursOf(install, detail.employeeId)
      : undefined,
  ]);

  const asOf = {
    ...(countryList ? { countries: countryList.fetchedAt } : {}),
    ...(stateList ? { states: stateList.fetchedAt } : {}),
  };
  const base = {
    accountId: detail.accountId,
    // Set here (not by the runtime) so that the split measures it.
    causationId: event.id,
    answerId: randomUUID(),
    hostname: business.hostname,
    kinds: [...detail.kinds],
    ...(detail.countryCode === undefined ? {} : { countryCode: detail.countryCode }),
    ...(Object.keys(asOf).length > 0 ? { asOf } : {}),
  };
  const lists: {
    countries?: CountryEntry[];
    states?: StateEntry[];
    leaveRules?: LeaveRuleEntry[];
    awards?: AwardEntry[];
  } = {
    ...(countryList ? { countries: countryList.entries } : {}),
    ...(stateList ? { states: stateList.entries } : {}),
    ...(leaveRules ? { leaveRules } : {}),
    ...(awards ? { awards } : {}),
  };
  const parts = splitIntoParts(
    base,
    lists as Record<string, readonly unknown[]>,
    detailRoomBytes(config.outboundSource, DETAIL_TYPE),
    agreedHours === undefined ? {} : { agreedHours },
  );
  await recordSyncSuccess(store, detail.accountId, clock.now());
  return parts.map((part) => ({ detailType: DETAIL_TYPE, detail: part as unknown as AnswerDetail }));
}

interface CacheSettings {
  store: Store;
  hostname: string;
  maxAgeSeconds: number;
  now: () => Date;
  onTooLarge: (kind: ReferenceCacheKind, bytes: number) => void;
}

interface Cached<T> {
  entries: T[];
  /** When the service was read for this list. */
  fetchedAt: string;
}

/**
 * The list from the table when fresh and readable, else from `read` (then written back). A
 * cached list that no longer matches the entry schema is read again rather than trusted.
 */
async function cachedList<T>(
  cache: CacheSettings,
  kind: ReferenceCacheKind,
  schema: {
    safeParse(value: unknown): { success: true; data: T[] } | { success: false };
  },
  read: () => Promise<T[]>,
  options: { fresh?: boolean } = {},
): Promise<Cached<T>> {
  const hit = options.fresh
    ? undefined
    : await getCachedReferenceList(cache.store, cache.hostname, kind, {
        maxAgeSeconds: cache.maxAgeSeconds,
        now: cache.now(),
      });
  if (hit) {
    const parsed = schema.safeParse(hit.entries);
    if (parsed.success) return { entries: parsed.data, fetchedAt: hit.fetchedAt };
  }
  const fetchedAt = cache.now();
  const entries = await read();
  const written = await putCachedReferenceList(
    cache.store,
    cache.hostname,
    kind,
    { entries, fetchedAt },
    { maxAgeSeconds: cache.maxAgeSeconds },
  );
  if (!written.cached) cache.onTooLarge(kind, written.bytes);
  return { entries, fetchedAt: fetchedAt.toISOString() };
}

async function statesOf(
  install: InstallClient,
  cache: CacheSettings,
  countries: () => Promise<Cached<CountryEntry>>,
  readCountries: () => Promise<Cached<CountryEntry>>,
  countryCode: string | undefined,
): Promise<Cached<StateEntry>> {
  if (countryCode === undefined) {
    return cachedList(cache, 'STATES', stateEntry.array(), () => readStates(install, {}));
  }
  const wanted = countryCode.toUpperCase();
  const find = (list: Cached<CountryEntry>) =>
    list.entries.find((entry) => entry.code.toUpperCase() === wanted);
  // A country added since the countries were cached is looked for once more at the service.
  let country = find(await countries());
  if (!country) country = find(await readCountries());
  if (!country) throw new UnknownCountryError(countryCode);
  const countryId = country.id;
  // One country's states (`Country eq id`), cached per country: a request never depends on the
  // install's whole list, which could reach a QUERY maximum.
  return cachedList(cache, `STATES#${countryId}`, stateEntry.array(), () =>
    readStates(install, { countryId }),
  );
}

async function readStates(install: InstallClient, filter: { countryId?: number }): Promise<StateEntry[]> {
  return (await readOrRefuse('reading states', () => install.findStates(filter))).map(
    (state): StateEntry => ({
      id: state.Id,
      countryId: state.Country,
      code: state.Code,
      name: state.State,
      ...(state.Active === undefined ? {} : { active: state.Active }),
      ...(typeof state.SortOrder === 'number' ? { sortOrder: state.SortOrder } : {}),
    }),
  );
}

function countryOf(country: Awaited<ReturnType<InstallClient['findCountries']>>[number]): CountryEntry {
  return {
    id: country.Id,
    code: country.Code,
    name: country.Country,
    ...(country.CodeA3 ? { codeA3: country.CodeA3 } : {}),
    ...(country.Region ? { region: country.Region } : {}),
    ...(country.Active === undefined ? {} : { active: country.Active }),
    ...(typeof country.SortOrder === 'number' ? { sortOrder: country.SortOrder } : {}),
  };
}

/** Fields the spec does not show; the first one holding a string names the rule. */
const LEAVE_RULE_NAME_FIELDS = ['Name', 'LeaveRule', 'Description', 'Code'] as const;

/** Plain fields pass through as given; objects, arrays and metadata (`_DPMetaData`) are left out. */
export function leaveRuleOf(record: LeaveRuleRecord): LeaveRuleEntry {
  const fields: LeaveRuleEntry['fields'] = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === 'Id' || key.startsWith('_')) continue;
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      fields[key] = value as string | number | boolean | null;
    }
  }
  const nameField = LEAVE_RULE_NAME_FIELDS.find(
    (field) => typeof record[field] === 'string' && record[field] !== '',
  );
  return { id: record.Id, ...(nameField ? { name: record[nameField] as string } : {}), fields };
}

/**
 * Which pay rate library an award code belongs to: the spec says new-library codes are
 * mixed-case alphanumeric and other formats (such as `MA000004`) belong to the old library.
 */
function awardLibraryOf(awardCode: string): 'NEW' | 'OLD' {
  return /^[A-Za-z0-9]+$/.test(awardCode) && /[a-z]/.test(awardCode) && /[A-Z]/.test(awardCode)
    ? 'NEW'
    : 'OLD';
}

async function agreedHoursOf(
  install: InstallClient,
  employeeId: number,
): Promise<AnswerDetail['agreedHours']> {
  const agreedHour = await readOrRefuse(`reading the agreed hours of employee ${employeeId}`, () =>
    install.getAgreedHours(employeeId),
  );
  return { employeeId, agreedHour };
}

/** A refusal of a read is where the answer ends: SyncFailed with the service's code and what was read. */
async function readOrRefuse<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ServiceRejectedError) throw serviceRejection(what, error);
    throw error;
  }
}
