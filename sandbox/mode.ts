import { invalid } from './errors.ts';
import { isObject } from './fields.ts';
import type { Region } from './records.ts';

/**
 * The sandbox's mode: by default it answers as the service's API description *allows* (the spec),
 * not as a client hopes. Each reading a client may meet where the description is vague, and that a
 * client may wish to be tolerant of, is a named lenient reading, off unless asked for (`--lenient
 * a,b`, `startSandbox({ lenient: [...] })`, `POST /_sandbox/mode {"lenient": [...]}`). Three of them
 * also have a knob that wins over the reading: which provisioning roots run, how long bulk metrics
 * stay invisible, and after how long a free business is deleted. A knob left unset (or set to null)
 * follows the readings. One more knob is the same whatever the readings: the error code of the
 * refusal of a hostname not linked to the partner (the spec names the condition, not the code), so a
 * test can make the sandbox answer the code a deployment configures.
 */

export type RegionCode = 'US' | 'UK' | 'AU';
export const REGION_CODES: readonly RegionCode[] = ['US', 'UK', 'AU'];

/** Each lenient reading, with what the sandbox then does instead of the spec's reading (for `--help`). */
export const LENIENT_READINGS = {
  'lk-exact': 'QUERY `lk`: `%` only at the start or end; without `%` an exact (case-insensitive) match',
  'and-conditions': 'several QUERY conditions are ANDed (the spec reading ORs them)',
  'all-records': 'a QUERY answers every matching record (the spec reading cuts after 500)',
  'custom-field-ids': "a joined timesheet's CustomFieldData is its integer id, not the expanded record",
  'base-rate-everywhere':
    'EmployeeAgreement.BaseRate on UK and AU installs too (seeded, and kept by setAwardFromLibrary)',
  'all-regions': 'the UK and AU provisioning roots run (the spec: only US runs)',
  'bulk-metrics-at-once': 'metrics:bulk values are visible at once (the spec reading: 60 s later)',
  'keep-free-businesses': 'free businesses are never deleted (the spec reading: after 30 days)',
  'utc-timestamps': "install records are stamped in UTC, not in the install's local time",
  'cancel-answer': 'change-plan cancel answers {hostname, trialEndDate, edition} instead of data null',
  'agreed-hour-answer': 'POST agreed_hour answers {success, data} instead of 204 without a body',
  'other-pay-rule-overrides':
    'setAwardFromLibrary takes overrides of any pay rule of the install (the spec reading: each arrOverridePayRules Id is the base pay rule)',
  'plain-seed':
    'new installs get the plain seed: no edge-case custom field values, no UM country, no second WA state code',
} as const;

export type LenientReading = keyof typeof LENIENT_READINGS;
export const LENIENT_READING_NAMES = Object.keys(LENIENT_READINGS) as LenientReading[];

/** Bulk metrics become visible this long (sandbox clock) after the request (the spec reading). */
export const STRICT_BULK_METRICS_DELAY_SECONDS = 60;
/** A business that has been SUBSCRIPTION_FREE this long (sandbox clock) is deleted (the spec reading). */
export const STRICT_FREE_BUSINESS_DELETION_DAYS = 30;
/** Most records one QUERY answers (the rest are silently left out), unless `all-records`. */
export const STRICT_QUERY_MAX_RECORDS = 500;
/** The code of a provisioning refusal for a hostname not linked to the partner, whatever the readings. */
const DEFAULT_NOT_LINKED_ERROR_CODE = 'HOSTNAME_NOT_LINKED';

export interface ModeOptions {
  /** Lenient readings on from the start. @default none: the spec */
  lenient?: readonly LenientReading[];
  /** Provisioning roots that answer; others answer 503 REGION_NOT_RUNNING. */
  regions?: readonly RegionCode[];
}

export interface ModeView {
  /** No lenient reading is on: the sandbox answers as the spec allows. */
  strict: boolean;
  lenient: LenientReading[];
  regions: RegionCode[];
  bulkMetricsDelaySeconds: number;
  /** null: free businesses are never deleted. */
  freeBusinessDeletionDays: number | null;
  /** The error code of subscription-status / change-plan for a hostname not linked to the partner. */
  notLinkedErrorCode: string;
}

interface Overrides {
  regions?: RegionCode[];
  bulkMetricsDelaySeconds?: number;
  freeBusinessDeletionDays?: number | null;
  notLinkedErrorCode?: string;
}

export class SandboxMode {
  private readings: Set<LenientReading>;
  private overrides: Overrides;

  constructor(private readonly initial: ModeOptions = {}) {
    this.readings = new Set(parseLenient(initial.lenient ?? []));
    this.overrides = initialOverrides(initial);
  }

  /** Whether a lenient reading is on. */
  lenient(reading: LenientReading): boolean {
    return this.readings.has(reading);
  }

  /** No lenient reading is on. */
  get strict(): boolean {
    return this.readings.size === 0;
  }

  regions(): RegionCode[] {
    return this.overrides.regions ?? (this.lenient('all-regions') ? [...REGION_CODES] : ['US']);
  }

  regionRuns(region: Region): boolean {
    return this.regions().includes(region.toUpperCase() as RegionCode);
  }

  bulkMetricsDelayMs(): number {
    const seconds =
      this.overrides.bulkMetricsDelaySeconds ??
      (this.lenient('bulk-metrics-at-once') ? 0 : STRICT_BULK_METRICS_DELAY_SECONDS);
    return seconds * 1000;
  }

  freeBusinessDeletionDays(): number | null {
    if (this.overrides.freeBusinessDeletionDays !== undefined) return this.overrides.freeBusinessDeletionDays;
    return this.lenient('keep-free-businesses') ? null : STRICT_FREE_BUSINESS_DELETION_DAYS;
  }

  notLinkedErrorCode(): string {
    return this.overrides.notLinkedErrorCode ?? DEFAULT_NOT_LINKED_ERROR_CODE;
  }

  describe(): ModeView {
    return {
      strict: this.strict,
      lenient: LENIENT_READING_NAMES.filter((name) => this.readings.has(name)),
      regions: this.regions(),
      bulkMetricsDelaySeconds: this.bulkMetricsDelayMs() / 1000,
      freeBusinessDeletionDays: this.freeBusinessDeletionDays(),
      notLinkedErrorCode: this.notLinkedErrorCode(),
    };
  }

  /**
   * Applies a `POST /_sandbox/mode` body: every field optional, null returns a knob to the readings'
   * default. `lenient` replaces the list of lenient readings; `strict: true` turns them all off and
   * `strict: false` all on (the sandbox's former default), and cannot be given with `lenient`.
   */
  configure(body: unknown): ModeView {
    if (!isObject(body)) {
      throw invalid(
        'body must be an object with lenient, strict, regions, bulkMetricsDelaySeconds, freeBusinessDeletionDays and/or notLinkedErrorCode',
      );
    }
    const known = [
      'lenient',
      'strict',
      'regions',
      'bulkMetricsDelaySeconds',
      'freeBusinessDeletionDays',
      'notLinkedErrorCode',
    ];
    const unknown = Object.keys(body).filter((key) => !known.includes(key));
    if (unknown.length > 0) throw invalid(`unknown mode field(s): ${unknown.join(', ')}`);
    // Validate everything before changing anything.
    const next: Overrides = { ...this.overrides };
    let readings = this.readings;
    if (body.strict !== undefined && body.lenient !== undefined) {
      throw invalid('give lenient or strict, not both');
    }
    if (body.strict !== undefined) {
      if (typeof body.strict !== 'boolean') throw invalid('strict must be true or false');
      readings = new Set(body.strict ? [] : LENIENT_READING_NAMES);
    }
    if (body.lenient !== undefined) readings = new Set(parseLenient(body.lenient));
    if (body.regions !== undefined) {
      if (body.regions === null) delete next.regions;
      else next.regions = parseRegions(body.regions);
    }
    if (body.bulkMetricsDelaySeconds !== undefined) {
      const value = body.bulkMetricsDelaySeconds;
      if (value === null) delete next.bulkMetricsDelaySeconds;
      else if (typeof value === 'number' && Number.isFinite(value) && value >= 0)
        next.bulkMetricsDelaySeconds = value;
      else throw invalid('bulkMetricsDelaySeconds must be a number of seconds >= 0, or null');
    }
    if (body.freeBusinessDeletionDays !== undefined) {
      const value = body.freeBusinessDeletionDays;
      if (value === null) delete next.freeBusinessDeletionDays;
      else if (value === 'never') next.freeBusinessDeletionDays = null;
      else if (typeof value === 'number' && Number.isFinite(value) && value >= 0)
        next.freeBusinessDeletionDays = value;
      else throw invalid('freeBusinessDeletionDays must be a number of days >= 0, "never", or null');
    }
    if (body.notLinkedErrorCode !== undefined) {
      const value = body.notLinkedErrorCode;
      if (value === null) delete next.notLinkedErrorCode;
      else if (typeof value === 'string' && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(value))
        next.notLinkedErrorCode = value;
      else
        throw invalid(
          'notLinkedErrorCode must be an error code (a letter, then letters, digits, _ . -), or null',
        );
    }
    this.readings = readings;
    this.overrides = next;
    return this.describe();
  }

  /** Back to the mode the sandbox was started with (`POST /_sandbox/reset`). */
  reset(): void {
    this.readings = new Set(parseLenient(this.initial.lenient ?? []));
    this.overrides = initialOverrides(this.initial);
  }
}

function initialOverrides(initial: ModeOptions): Overrides {
  return initial.regions ? { regions: parseRegions(initial.regions) } : {};
}

/**
 * Lenient reading names in an array (or a comma-separated string, for the CLIs, where `all` names
 * every reading); duplicates dropped.
 */
export function parseLenient(value: unknown): LenientReading[] {
  if (typeof value === 'string' && value.trim() === 'all') return [...LENIENT_READING_NAMES];
  const list =
    typeof value === 'string'
      ? value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) {
    throw invalid(`lenient must be an array of reading names (${LENIENT_READING_NAMES.join(', ')})`);
  }
  const wrong = list.filter((item: string) => !(item in LENIENT_READINGS));
  if (wrong.length > 0) {
    throw invalid(
      `lenient: unknown reading(s) ${wrong.join(', ')} (known: ${LENIENT_READING_NAMES.join(', ')})`,
    );
  }
  return LENIENT_READING_NAMES.filter((name) => list.includes(name));
}

/** 'US', 'uk', ... in an array (or a comma-separated string, for the CLI); duplicates dropped. */
export function parseRegions(value: unknown): RegionCode[] {
  const list = typeof value === 'string' ? value.split(',').map((part) => part.trim()) : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== 'string')) {
    throw invalid('regions must be an array of region codes (US, UK, AU)');
  }
  const codes = list.map((item: string) => item.toUpperCase());
  const wrong = codes.filter((code) => !REGION_CODES.includes(code as RegionCode));
  if (wrong.length > 0) throw invalid(`regions: unknown region code(s) ${wrong.join(', ')} (US, UK, AU)`);
  return REGION_CODES.filter((code) => codes.includes(code));
}
