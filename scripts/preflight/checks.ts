import { randomUUID } from 'node:crypto';
import type { Region } from '#functions/contracts/fields.ts';
import { notLinkedMessagePatternsMatching, type ServiceAssumptions } from '#functions/service/assumptions.ts';
import { isRecord, readServiceError } from '#functions/service/http.ts';
import { badRequestLine, type CheckLine, describeAnswer, line, tokenRefused } from './answers.ts';
import { installAssumptions } from './install-checks.ts';
import type { ReadAnswer, ReadOnlyHttp } from './read-only-http.ts';

/**
 * What the preflight checks, with reads only: each configured provisioning root answers and accepts
 * the token, a known hostname's subscription status reads, and each service assumption the
 * deployment makes is confirmed, contradicted or not observable (with why). docs/deploy.md, "Go
 * live", says how each one is observed.
 */

export type { CheckLine, CheckStatus } from './answers.ts';

export interface PreflightTarget {
  readonly partnerName: string;
  readonly provisioningUrls: Partial<Record<Region, string>>;
  /** The install base URL of a hostname, as the functions build it. */
  readonly installBaseUrl: (hostname: string) => string;
  readonly allowedHostnameSuffixes: readonly string[];
  readonly assumptions: ServiceAssumptions;
  /** A hostname of a business the partner owns: its status and its install are read. */
  readonly hostname?: string;
  /** The region whose root is asked for the hostname's status. @default 'US' */
  readonly hostnameRegion?: Region;
}

/** Most `QUERY State` per country the query-limit check sends. */
interface RootProbe {
  readonly region: Region;
  readonly answer: ReadAnswer;
}

/** What the roots and the token show, and the not-linked refusal an unknown hostname got. */
async function checkRoots(
  http: ReadOnlyHttp,
  target: PreflightTarget,
): Promise<{ lines: CheckLine[]; accepted: RootProbe[] }> {
  const lines: CheckLine[] = [];
  const accepted: RootProbe[] = [];
  const suffix = (target.allowedHostnameSuffixes[0] ?? '.example.invalid').replace(/^\./, '');
  // Unknown to the service: the spec's answer is the not-linked refusal, which only a caller whose
  // token is accepted can get ("Without a valid token the calls are not accepted").
  const unknownHostname = `preflight-unknown-${randomUUID().slice(0, 8)}.${suffix}`;
  for (const [region, root] of Object.entries(target.provisioningUrls) as [Region, string][]) {
    const url = `${root.replace(/\/+$/, '')}/connect/v1/partner/${encodeURIComponent(target.partnerName)}/subscription-status`;
    const answer = await http.read('POST', url, { hostname: unknownHostname });
    const shown = describeAnswer(answer);
    if (answer.status === 0) {
      lines.push(line(`${region} root`, 'failed', `${root} gave ${shown}`));
      lines.push(line(`token at ${region}`, 'not observable', 'the root did not answer'));
    } else if (answer.status === 429) {
      lines.push(
        line(`${region} root`, 'failed', `${root} answered ${shown}: rate limited, run again later`),
      );
      lines.push(line(`token at ${region}`, 'not observable', 'the root did not take the request'));
    } else if (answer.status >= 500) {
      lines.push(line(`${region} root`, 'failed', `${root} answers but not as a running root: ${shown}`));
      lines.push(line(`token at ${region}`, 'not observable', 'the root did not take the request'));
    } else if (tokenRefused(answer)) {
      lines.push(line(`${region} root`, 'ok', `${root} answers`));
      lines.push(line(`token at ${region}`, 'failed', `refused: ${shown}`));
    } else {
      lines.push(line(`${region} root`, 'ok', `${root} answers`));
      lines.push(
        line(
          `token at ${region}`,
          'ok',
          `accepted (subscription-status of an unknown hostname answered ${shown})`,
        ),
      );
      accepted.push({ region, answer });
    }
  }
  return { lines, accepted };
}

async function checkKnownHostname(http: ReadOnlyHttp, target: PreflightTarget): Promise<CheckLine[]> {
  const { hostname } = target;
  if (hostname === undefined) return [];
  const region = target.hostnameRegion ?? 'US';
  const root = target.provisioningUrls[region];
  if (root === undefined) {
    return [line(`status of ${hostname}`, 'failed', `no ${region} provisioning root is configured`)];
  }
  const url = `${root.replace(/\/+$/, '')}/connect/v1/partner/${encodeURIComponent(target.partnerName)}/subscription-status`;
  const answer = await http.read('POST', url, { hostname });
  const data = isRecord(answer.body) && isRecord(answer.body.data) ? answer.body.data : undefined;
  if (answer.status >= 200 && answer.status < 300 && data !== undefined) {
    return [
      line(
        `status of ${hostname}`,
        'ok',
        `edition ${String(data.edition)}, trial end ${String(data.trialEndDate)}, status ${String(data.status)}`,
      ),
    ];
  }
  return [line(`status of ${hostname}`, 'failed', `subscription-status answered ${describeAnswer(answer)}`)];
}

/** The assumptions the provisioning probes show: the not-linked code, the error envelope, a bad request. */
async function provisioningAssumptions(
  http: ReadOnlyHttp,
  target: PreflightTarget,
  accepted: readonly RootProbe[],
): Promise<CheckLine[]> {
  const probe = accepted[0];
  if (probe === undefined) {
    const why = 'no provisioning root accepted the token';
    return [
      line('hostnameNotLinkedCodes', 'not observable', why),
      line('hostnameNotLinkedStatuses', 'not observable', why),
      line('hostnameNotLinkedMessagePatterns', 'not observable', why),
      line('error envelope (provisioning)', 'not observable', why),
      line('bad request (provisioning)', 'not observable', why),
    ];
  }
  const out: CheckLine[] = [];
  const { serviceCode } = readServiceError(probe.answer.body);
  const configured = target.assumptions.hostnameNotLinkedCodes;
  if (probe.answer.status >= 200 && probe.answer.status < 300) {
    out.push(
      line(
        'hostnameNotLinkedCodes',
        'contradicted',
        'subscription-status of a hostname nobody created succeeded: the not-linked refusal the drift watch reads as BusinessGone was not seen',
      ),
    );
  } else if (serviceCode !== undefined && configured.includes(serviceCode)) {
    out.push(
      line('hostnameNotLinkedCodes', 'confirmed', `an unknown hostname is refused with ${serviceCode}`),
    );
  } else {
    out.push(
      line(
        'hostnameNotLinkedCodes',
        'contradicted',
        `an unknown hostname is refused with ${describeAnswer(probe.answer)}, not one of ${configured.join(', ')}: set serviceAssumptions.hostnameNotLinkedCodes to the code it answers`,
      ),
    );
  }
  out.push(...notLinkedStatusAndMessage(probe.answer, target.assumptions));
  const body = probe.answer.body;
  const envelope = isRecord(body) && body.success === false && 'error' in body;
  out.push(
    serviceCode !== undefined && envelope
      ? line(
          'error envelope (provisioning)',
          'confirmed',
          '{success: false, error: {code, message}}: the code is read',
        )
      : line(
          'error envelope (provisioning)',
          'contradicted',
          `the refusal carries ${envelope ? 'no readable error code' : 'no {success: false, error} envelope'} (${JSON.stringify(body)?.slice(0, 160)}): refusals are told apart by code`,
        ),
  );
  // A harmless bad request: the required hostname left out.
  const root = target.provisioningUrls[probe.region] ?? '';
  const bad = await http.read(
    'POST',
    `${root.replace(/\/+$/, '')}/connect/v1/partner/${encodeURIComponent(target.partnerName)}/subscription-status`,
    {},
  );
  out.push(badRequestLine('bad request (provisioning)', 'subscription-status without hostname', bad));
  return out;
}

/**
 * The other two ways a deleted business is recognised, set against the refusal of a hostname nobody
 * created: a configured status confirmed when it is the refusal's; message patterns confirmed when
 * one matches its message, contradicted when some are configured and none does.
 */
function notLinkedStatusAndMessage(answer: ReadAnswer, assumptions: ServiceAssumptions): CheckLine[] {
  if (answer.status >= 200 && answer.status < 300) {
    const why = 'subscription-status of a hostname nobody created succeeded: no refusal to compare';
    return [
      line('hostnameNotLinkedStatuses', 'not observable', why),
      line('hostnameNotLinkedMessagePatterns', 'not observable', why),
    ];
  }
  const statuses = assumptions.hostnameNotLinkedStatuses;
  const statusLine = statuses.includes(answer.status)
    ? line(
        'hostnameNotLinkedStatuses',
        'confirmed',
        `an unknown hostname is refused with HTTP ${answer.status}`,
      )
    : line(
        'hostnameNotLinkedStatuses',
        'not observable',
        `an unknown hostname is refused with HTTP ${answer.status}, not configured (${statuses.join(', ') || 'none'}): only a status the service answers for a deleted business alone belongs here`,
      );
  const { serviceMessage } = readServiceError(answer.body);
  const patterns = assumptions.hostnameNotLinkedMessagePatterns;
  const matching = notLinkedMessagePatternsMatching(serviceMessage, assumptions);
  const messageLine =
    patterns.length === 0
      ? line('hostnameNotLinkedMessagePatterns', 'not observable', 'no pattern configured')
      : matching.length > 0
        ? line(
            'hostnameNotLinkedMessagePatterns',
            'confirmed',
            `${matching.join(', ')} matches "${serviceMessage}"`,
          )
        : line(
            'hostnameNotLinkedMessagePatterns',
            'contradicted',
            `no pattern (${patterns.join(', ')}) matches the refusal's message "${serviceMessage ?? ''}"`,
          );
  return [statusLine, messageLine];
}

/** A bad request must come back as the service's refusal (SyncFailed), not as a token problem or an outage. */
const NOT_WITHOUT_WRITING: Readonly<Partial<Record<keyof ServiceAssumptions, string>>> = {
  signupDuplicateCodes: 'only a repeated signup (a write) shows its refusal codes',
  signupDuplicateMessagePatterns: 'only a repeated signup (a write) shows its refusal messages',
  agreedHourCycleSpelling: 'which spelling a write accepts shows only in a write',
  agreementIdFields: 'only setAwardFromLibrary (a write) answers the new agreement id',
  locationIdFields: 'only creating a location (a write) answers its id',
  areaIdFields: 'only creating an area (a write) answers its id',
  timesheetFieldPath: 'only creating a timesheet custom field definition (a write) shows its path',
  employeesBulkPath: 'only an employees:bulk assignment (a write) shows its path',
  employeesBulkBody: 'only an employees:bulk assignment (a write) shows which body it takes',
  uncodedStatusReadings:
    'only an answer without a service code shows what it means; the probes here are answered with codes',
};

export interface PreflightReport {
  readonly lines: readonly CheckLine[];
  /** Nothing contradicted or failed: the token is accepted everywhere and every root answers. */
  readonly pass: boolean;
  /** The requests sent, every one a read. */
  readonly sent: readonly string[];
}

export async function runPreflight(http: ReadOnlyHttp, target: PreflightTarget): Promise<PreflightReport> {
  const roots = await checkRoots(http, target);
  const lines = [
    ...roots.lines,
    ...(await checkKnownHostname(http, target)),
    ...(await provisioningAssumptions(http, target, roots.accepted)),
    ...(await installAssumptions(http, target)),
    ...Object.entries(NOT_WITHOUT_WRITING).map(([name, why]) => line(name, 'not observable', why ?? '')),
  ];
  return {
    lines,
    pass:
      roots.accepted.length > 0 &&
      !lines.some((entry) => entry.status === 'failed' || entry.status === 'contradicted'),
    sent: [...http.sent],
  };
}
