import { assertPlainHostname } from '#functions/service/addresses.ts';
import type { ServiceAssumptions } from '#functions/service/assumptions.ts';
import {
  badRequestLine,
  type CheckLine,
  describeAnswer,
  isServiceRefusal,
  line,
  records,
  tokenRefused,
} from './answers.ts';
import type { PreflightTarget } from './checks.ts';
import type { ReadAnswer, ReadOnlyHttp } from './read-only-http.ts';

/**
 * The assumptions an install shows to reads (with --hostname of an install the partner owns): its
 * auth, a bad request's refusal, the resources the connector queries, the query limit, what `lk`
 * matches and how several conditions combine.
 */

const MAX_PARTITION_READS = 40;

export interface InstallProbe {
  readonly http: ReadOnlyHttp;
  readonly base: string;
  readonly withToken: boolean;
}

async function query(probe: InstallProbe, resource: string, body?: unknown): Promise<ReadAnswer> {
  return probe.http.read('POST', `${probe.base}/api/v1/resource/${resource}/QUERY`, body, {
    withToken: probe.withToken,
  });
}

const search = (...conditions: [field: string, type: string, data: unknown][]) => ({
  search: Object.fromEntries(
    conditions.map(([field, type, data], index) => [`s${index + 1}`, { field, type, data }]),
  ),
});

async function checkResources(probe: InstallProbe, assumptions: ServiceAssumptions): Promise<CheckLine[]> {
  const out: CheckLine[] = [];
  let contracts: Record<string, unknown>[] | undefined;
  for (const name of ['contractResource', 'payRuleResource', 'leaveRuleResource'] as const) {
    const resource = assumptions[name];
    const answer = await query(probe, resource);
    const found = records(answer);
    if (name === 'contractResource') contracts = found;
    if (found !== undefined) {
      out.push(line(name, 'confirmed', `QUERY ${resource} answers (${found.length} records)`));
    } else if (answer.status === 404 || (isServiceRefusal(answer) && answer.status !== 409)) {
      out.push(line(name, 'contradicted', `QUERY ${resource} answered ${describeAnswer(answer)}`));
    } else {
      out.push(line(name, 'not observable', `QUERY ${resource} answered ${describeAnswer(answer)}`));
    }
  }
  const fields = assumptions.basePayRuleFields;
  if (contracts === undefined || contracts.length === 0) {
    out.push(line('basePayRuleFields', 'not observable', 'no employment contract was read'));
  } else {
    const carrying = contracts.filter((contract) => fields.some((field) => contract[field] != null));
    out.push(
      carrying.length > 0
        ? line(
            'basePayRuleFields',
            'confirmed',
            `${carrying.length} of ${contracts.length} contracts carry ${fields.join(' or ')}`,
          )
        : line(
            'basePayRuleFields',
            'contradicted',
            `none of ${contracts.length} contracts carries ${fields.join(' or ')} (fields: ${Object.keys(contracts[0] ?? {}).join(', ')})`,
          ),
    );
  }
  out.push(
    ...(await checkTimesheetReads(probe, assumptions)),
    ...(await checkRecordResources(probe, assumptions)),
    ...(await checkTimesheetFieldReads(probe, assumptions)),
  );
  return out;
}

/** The read that finds a pay period's timesheets: its resource answers, and its records carry the date field. */
async function checkTimesheetReads(
  probe: InstallProbe,
  assumptions: ServiceAssumptions,
): Promise<CheckLine[]> {
  const resource = assumptions.timesheetResource;
  const field = assumptions.timesheetDateField;
  const answer = await query(probe, resource);
  const found = records(answer);
  if (found === undefined) {
    const status = answer.status === 404 || isServiceRefusal(answer) ? 'contradicted' : 'not observable';
    const why = `QUERY ${resource} answered ${describeAnswer(answer)}`;
    return [line('timesheetResource', status, why), line('timesheetDateField', 'not observable', why)];
  }
  const dated = found.filter((record) => typeof record[field] === 'string');
  return [
    line('timesheetResource', 'confirmed', `QUERY ${resource} answers (${found.length} records)`),
    found.length === 0
      ? line('timesheetDateField', 'not observable', `QUERY ${resource} answered no records`)
      : dated.length > 0
        ? line('timesheetDateField', 'confirmed', `${dated.length} of ${found.length} records carry ${field}`)
        : line('timesheetDateField', 'contradicted', `no record of ${resource} carries ${field}`),
  ];
}

/** The read of the timesheet custom field definitions: its resource answers, and its records carry an id field. */
async function checkTimesheetFieldReads(
  probe: InstallProbe,
  assumptions: ServiceAssumptions,
): Promise<CheckLine[]> {
  const resource = assumptions.timesheetFieldResource;
  const answer = await query(probe, resource, search(['System', 'eq', 'Timesheet']));
  const found = records(answer);
  const why = `QUERY ${resource} answered ${describeAnswer(answer)}`;
  if (found === undefined) {
    const status = answer.status === 404 || isServiceRefusal(answer) ? 'contradicted' : 'not observable';
    return [
      line('timesheetFieldResource', status, why),
      line('timesheetFieldIdFields', 'not observable', why),
    ];
  }
  const fields = assumptions.timesheetFieldIdFields;
  const withId = found.filter((record) => fields.some((field) => record[field] != null));
  return [
    line('timesheetFieldResource', 'confirmed', `QUERY ${resource} answers (${found.length} definitions)`),
    found.length === 0
      ? line('timesheetFieldIdFields', 'not observable', `QUERY ${resource} answered no definitions`)
      : withId.length === found.length
        ? line('timesheetFieldIdFields', 'confirmed', `every definition carries ${fields.join(' or ')}`)
        : line(
            'timesheetFieldIdFields',
            'contradicted',
            `${found.length - withId.length} definitions carry none of ${fields.join(', ')}`,
          ),
  ];
}

/** Each resource RecordsRequested may read answers a QUERY. */
async function checkRecordResources(
  probe: InstallProbe,
  assumptions: ServiceAssumptions,
): Promise<CheckLine[]> {
  const refused: string[] = [];
  const unanswered: string[] = [];
  for (const resource of new Set(Object.values(assumptions.recordResources))) {
    const answer = await query(probe, resource);
    if (records(answer) !== undefined) continue;
    if (answer.status === 404 || isServiceRefusal(answer))
      refused.push(`${resource} (${describeAnswer(answer)})`);
    else unanswered.push(resource);
  }
  const names = Object.keys(assumptions.recordResources).join(', ');
  if (refused.length > 0)
    return [line('recordResources', 'contradicted', `QUERY refused: ${refused.join('; ')}`)];
  if (unanswered.length > 0) {
    return [line('recordResources', 'not observable', `QUERY not answered: ${unanswered.join(', ')}`)];
  }
  return [line('recordResources', 'confirmed', `every resource answers a QUERY (${names})`)];
}

/**
 * The query limit: all states, then the states of each country seen; more states by country than
 * in the whole answer means the whole answer was cut (the spec shows no paging and no maximum).
 */
async function checkQueryLimit(probe: InstallProbe, configured: number | null): Promise<CheckLine> {
  const name = 'queryMaxRecords';
  const all = records(await query(probe, 'State'));
  if (all === undefined)
    return line(name, 'not observable', 'QUERY State without conditions was not answered with records');
  const countries = [
    ...new Set(
      all.map((state) => state.Country).filter((id) => typeof id === 'number' || typeof id === 'string'),
    ),
  ];
  let byCountry = 0;
  for (const country of countries.slice(0, MAX_PARTITION_READS)) {
    byCountry += records(await query(probe, 'State', search(['Country', 'eq', country])))?.length ?? 0;
  }
  const n = all.length;
  const shown = configured === null ? 'no maximum is configured' : `the configured maximum is ${configured}`;
  if (byCountry > n) {
    if (configured === n)
      return line(
        name,
        'confirmed',
        `QUERY State answered ${n} of at least ${byCountry} states: answers are cut at ${n}`,
      );
    return line(
      name,
      'contradicted',
      `QUERY State answered ${n} of at least ${byCountry} states (answers are cut at ${n}) while ${shown}: set serviceAssumptions.queryMaxRecords to ${n}`,
    );
  }
  if (configured !== null && n > configured) {
    return line(
      name,
      'contradicted',
      `QUERY State answered ${n} records, more than the configured maximum ${configured}`,
    );
  }
  return line(
    name,
    'not observable',
    `the largest answer (${n} states) was not cut and ${shown}; a cut above ${n} records cannot be seen in this install`,
  );
}

/** `lk` with a full name finds the names that contain it (the spec: more than one record can come back). */
async function checkLike(
  probe: InstallProbe,
  countries: readonly Record<string, unknown>[],
): Promise<CheckLine> {
  const name = 'lk reading';
  const named = countries.filter((country) => typeof country.Country === 'string') as (Record<
    string,
    unknown
  > & { Country: string })[];
  const pair = named
    .flatMap((short) =>
      named
        .filter((long) => long !== short && long.Country.toLowerCase().includes(short.Country.toLowerCase()))
        .map((long) => ({ short, long })),
    )
    .at(0);
  if (pair === undefined)
    return line(name, 'not observable', 'no country name of this install contains another');
  const found = records(await query(probe, 'Country', search(['Country', 'lk', pair.short.Country])));
  if (found === undefined)
    return line(
      name,
      'not observable',
      `QUERY Country lk "${pair.short.Country}" was not answered with records`,
    );
  return found.some((country) => country.Id === pair.long.Id)
    ? line(
        name,
        'confirmed',
        `lk "${pair.short.Country}" also finds "${pair.long.Country}": lk matches names that contain the value, as the client reads it`,
      )
    : line(
        name,
        'contradicted',
        `lk "${pair.short.Country}" does not find "${pair.long.Country}": lk matches exactly, so a partial name in an event finds nothing (the client reads lk as "contains")`,
      );
}

/** Several conditions: accepted, and the records matching all of them are in the answer (AND or OR). */
async function checkConditions(
  probe: InstallProbe,
  countries: readonly Record<string, unknown>[],
): Promise<CheckLine> {
  const name = 'several conditions';
  const [first, second] = countries.filter(
    (country) => typeof country.Code === 'string' && typeof country.CodeA3 === 'string',
  );
  if (first === undefined || second === undefined)
    return line(name, 'not observable', 'fewer than two countries with Code and CodeA3');
  const both = await query(
    probe,
    'Country',
    search(['Code', 'eq', first.Code], ['CodeA3', 'eq', first.CodeA3]),
  );
  const bothFound = records(both);
  if (bothFound === undefined)
    return line(name, 'contradicted', `two conditions in one QUERY answered ${describeAnswer(both)}`);
  if (!bothFound.some((country) => country.Id === first.Id)) {
    return line(
      name,
      'contradicted',
      `a country matching both conditions (${String(first.Code)}, ${String(first.CodeA3)}) was left out of the answer`,
    );
  }
  const either =
    records(
      await query(probe, 'Country', search(['Code', 'eq', first.Code], ['CodeA3', 'eq', second.CodeA3])),
    ) ?? [];
  const ids = new Set(either.map((country) => country.Id));
  const reading =
    ids.has(first.Id) && ids.has(second.Id) ? 'ORed' : ids.size === 0 ? 'ANDed' : 'neither ANDed nor ORed';
  return line(
    name,
    'confirmed',
    `accepted, records matching all conditions come back, conditions are ${reading}; the client matches every condition again, so either reading is safe`,
  );
}

export async function installAssumptions(http: ReadOnlyHttp, target: PreflightTarget): Promise<CheckLine[]> {
  const { assumptions, hostname } = target;
  const installNames = [
    'installAuth',
    'bad request (install)',
    'contractResource',
    'payRuleResource',
    'leaveRuleResource',
    'basePayRuleFields',
    'queryMaxRecords',
    'lk reading',
    'several conditions',
  ];
  if (hostname === undefined) {
    return [
      line(
        'allowedHostnameSuffixes',
        'not observable',
        'give --hostname: hostnames come only from signup (a write)',
      ),
      ...installNames.map((name) =>
        line(name, 'not observable', 'give --hostname of an install the partner owns'),
      ),
    ];
  }
  const suffixes = target.allowedHostnameSuffixes.map((suffix) => suffix.replace(/^\./, ''));
  try {
    assertPlainHostname(hostname, suffixes);
  } catch (error) {
    return [
      line(
        'allowedHostnameSuffixes',
        'contradicted',
        `${(error as Error).message}: the functions would refuse it`,
      ),
      ...installNames.map((name) =>
        line(name, 'not observable', 'the hostname is refused, so its install is not read'),
      ),
    ];
  }
  const out: CheckLine[] = [
    line(
      'allowedHostnameSuffixes',
      'confirmed',
      `${hostname} is a plain hostname under ${suffixes.join(' or ')}`,
    ),
  ];
  const probe: InstallProbe = {
    http,
    base: target.installBaseUrl(hostname),
    withToken: assumptions.installAuth === 'bearer',
  };
  const countryAnswer = await query(probe, 'Country');
  const countries = records(countryAnswer);
  if (countries === undefined) {
    const shown = describeAnswer(countryAnswer);
    out.push(
      tokenRefused(countryAnswer)
        ? line(
            'installAuth',
            'contradicted',
            `QUERY Country with ${assumptions.installAuth === 'bearer' ? 'the bearer token' : 'no token'} answered ${shown}`,
          )
        : line('installAuth', 'not observable', `QUERY Country answered ${shown}`),
    );
    return [
      ...out,
      ...installNames
        .slice(1)
        .map((name) => line(name, 'not observable', `the install did not answer QUERY Country (${shown})`)),
    ];
  }
  out.push(
    line(
      'installAuth',
      'confirmed',
      `QUERY Country with ${assumptions.installAuth === 'bearer' ? 'the bearer token' : 'no token'} answers (${countries.length} countries)`,
    ),
  );
  out.push(
    badRequestLine(
      'bad request (install)',
      'QUERY Country with an unknown operator',
      await query(probe, 'Country', search(['Country', 'preflight-unknown-operator', 'x'])),
    ),
  );
  out.push(...(await checkResources(probe, assumptions)));
  out.push(await checkQueryLimit(probe, assumptions.queryMaxRecords));
  out.push(await checkLike(probe, countries));
  out.push(await checkConditions(probe, countries));
  return out;
}
