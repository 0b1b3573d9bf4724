import { invalid } from './errors.ts';
import { isObject } from './fields.ts';
import type { Region } from './records.ts';

/**
 * Default or strict. The default mode answers as a client hopes where the spec is vague; strict
 * mode answers as the spec *allows* (README "Strict mode"). Three strict behaviours have knobs
 * that also work in the default mode: which provisioning roots run, how long bulk metrics stay
 * invisible, and after how long a free business is deleted. A knob left unset (or set to null)
 * follows the mode. One more knob is the same in both modes: the error code of the refusal of a
 * hostname not linked to the partner (the spec names the condition, not the code), so a test can
 * make the sandbox answer the code a deployment configures.
 */

export type RegionCode = 'US' | 'UK' | 'AU';
export const REGION_CODES: readonly RegionCode[] = ['US', 'UK', 'AU'];

/** Bulk metrics become visible this long (sandbox clock) after the request, in strict mode. */
export const STRICT_BULK_METRICS_DELAY_SECONDS = 60;
/** A business that has been SUBSCRIPTION_FREE this long (sandbox clock) is deleted, in strict mode. */
export const STRICT_FREE_BUSINESS_DELETION_DAYS = 30;
/** Most records one QUERY answers in strict mode (the rest are silently left out). */
export const STRICT_QUERY_MAX_RECORDS = 500;
/** The code of a provisioning refusal for a hostname not linked to the partner, in both modes. */
const DEFAULT_NOT_LINKED_ERROR_CODE = 'HOSTNAME_NOT_LINKED';

export interface ModeOptions {
  strict?: boolean;
  /** Provisioning roots that answer; others answer 503 REGION_NOT_RUNNING. */
  regions?: readonly RegionCode[];
}

export interface ModeView {
  strict: boolean;
  regions: RegionCode[];
  bulkMetricsDelaySeconds: number;
  /** null: free businesses are never deleted. */
  freeBusinessDeletionDays: number | null;
  /** The error code of subscription-status / change-plan for a hostname not linked to the partner. */
  notLinkedErrorCode: string;
  /**
   * Whether setAwardFromLibrary takes overrides of pay rules other than the award's base one. The
   * spec describes each `arrOverridePayRules` entry's `Id` as "the base pay rule id", so by default
   * (both modes) any other id is refused; a lenient reading of the array as "the pay rules to
   * override" accepts any pay rule of the install.
   */
  otherPayRuleOverrides: boolean;
}

interface Overrides {
  otherPayRuleOverrides?: boolean;
  regions?: RegionCode[];
  bulkMetricsDelaySeconds?: number;
  freeBusinessDeletionDays?: number | null;
  notLinkedErrorCode?: string;
}

export class SandboxMode {
  strict: boolean;
  private overrides: Overrides;

  constructor(private readonly initial: ModeOptions = {}) {
    this.strict = initial.strict ?? false;
    this.overrides = initialOverrides(initial);
  }

  regions(): RegionCode[] {
    return this.overrides.regions ?? (this.strict ? ['US'] : [...REGION_CODES]);
  }

  regionRuns(region: Region): boolean {
    return this.regions().includes(region.toUpperCase() as RegionCode);
  }

  bulkMetricsDelayMs(): number {
    const seconds =
      this.overrides.bulkMetricsDelaySeconds ?? (this.strict ? STRICT_BULK_METRICS_DELAY_SECONDS : 0);
    return seconds * 1000;
  }

  freeBusinessDeletionDays(): number | null {
    if (this.overrides.freeBusinessDeletionDays !== undefined) return this.overrides.freeBusinessDeletionDays;
    return this.strict ? STRICT_FREE_BUSINESS_DELETION_DAYS : null;
  }

  notLinkedErrorCode(): string {
    return this.overrides.notLinkedErrorCode ?? DEFAULT_NOT_LINKED_ERROR_CODE;
  }

  otherPayRuleOverrides(): boolean {
    return this.overrides.otherPayRuleOverrides ?? false;
  }

  describe(): ModeView {
    return {
      strict: this.strict,
      regions: this.regions(),
      bulkMetricsDelaySeconds: this.bulkMetricsDelayMs() / 1000,
      freeBusinessDeletionDays: this.freeBusinessDeletionDays(),
      notLinkedErrorCode: this.notLinkedErrorCode(),
      otherPayRuleOverrides: this.otherPayRuleOverrides(),
    };
  }

  /** Applies a `POST /_sandbox/mode` body: every field optional, null returns a knob to the mode's default. */
  configure(body: unknown): ModeView {
    if (!isObject(body)) {
      throw invalid(
        'body must be an object with strict, regions, bulkMetricsDelaySeconds, freeBusinessDeletionDays, notLinkedErrorCode and/or otherPayRuleOverrides',
      );
    }
    const known = [
      'strict',
      'regions',
      'bulkMetricsDelaySeconds',
      'freeBusinessDeletionDays',
      'notLinkedErrorCode',
      'otherPayRuleOverrides',
    ];
    const unknown = Object.keys(body).filter((key) => !known.includes(key));
    if (unknown.length > 0) throw invalid(`unknown mode field(s): ${unknown.join(', ')}`);
    // Validate everything before changing anything.
    const next: Overrides = { ...this.overrides };
    let strict = this.strict;
    if (body.strict !== undefined) {
      if (typeof body.strict !== 'boolean') throw invalid('strict must be true or false');
      strict = body.strict;
    }
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
    if (body.otherPayRuleOverrides !== undefined) {
      const value = body.otherPayRuleOverrides;
      if (value === null) delete next.otherPayRuleOverrides;
      else if (typeof value === 'boolean') next.otherPayRuleOverrides = value;
      else throw invalid('otherPayRuleOverrides must be true, false or null');
    }
    this.strict = strict;
    this.overrides = next;
    return this.describe();
  }

  /** Back to the mode the sandbox was started with (`POST /_sandbox/reset`). */
  reset(): void {
    this.strict = this.initial.strict ?? false;
    this.overrides = initialOverrides(this.initial);
  }
}

function initialOverrides(initial: ModeOptions): Overrides {
  return initial.regions ? { regions: parseRegions(initial.regions) } : {};
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
