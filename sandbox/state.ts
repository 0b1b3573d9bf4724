import { FaultInjector, type FaultKind, RateLimiter } from './faults.ts';
import { type ModeOptions, SandboxMode } from './mode.ts';
import type { Install, Region } from './records.ts';
import { SandboxClock } from './time.ts';

export type Edition = 'SUBSCRIPTION_PRO_TRIAL' | 'SUBSCRIPTION_FREE' | 'SUBSCRIPTION_PAID_PRO_PREMIUM';

export interface Business {
  hostname: string;
  partner: string;
  region: Region;
  externalId: string;
  portfolioName: string;
  email: string;
  firstName: string;
  lastName: string;
  mobileNumber: string | null;
  estimatedEmployeeCount: number | null;
  edition: Edition;
  createdAt: number;
  trialEndsAt: number;
  /** When a cancel made the business SUBSCRIPTION_FREE (a trial running out is `trialEndsAt`). */
  cancelledAt: number | null;
  billingAddress: Record<string, unknown> | null;
}

export interface RequestLogEntry {
  /** The sandbox clock (which tests may move), to the second. */
  time: string;
  /** Wall-clock time of the answer in epoch ms: the rate limiter's clock (chaos measures rates on it). */
  wallMs: number;
  method: string;
  path: string;
  /** 0 when the sandbox never answered (timeout or drop-after-commit faults). */
  status: number;
  /** Why the answer is not the API's own: `rate-limit` (over `--rate-limit`), or the injected fault's kind. */
  cause?: 'rate-limit' | FaultKind;
}

export interface SandboxSettings {
  partner: string;
  token: string;
  rateLimit: number | undefined;
  /** The mode the sandbox starts (and resets) with. */
  mode?: ModeOptions;
}

/** Everything the sandbox knows; one instance per running server, all in memory. */
export class SandboxState {
  readonly clock = new SandboxClock();
  readonly faults = new FaultInjector();
  readonly rateLimiter: RateLimiter;
  readonly mode: SandboxMode;
  readonly businesses = new Map<string, Business>();
  readonly installs = new Map<string, Install>();
  requestLog: RequestLogEntry[] = [];
  hostnameCounter = 0;

  constructor(readonly settings: SandboxSettings) {
    this.rateLimiter = new RateLimiter(settings.rateLimit);
    this.mode = new SandboxMode(settings.mode);
  }

  reset(): void {
    this.clock.reset();
    this.faults.clear();
    this.rateLimiter.reset();
    this.mode.reset();
    this.businesses.clear();
    this.installs.clear();
    this.requestLog = [];
    this.hostnameCounter = 0;
  }
}
