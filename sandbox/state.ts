import { FaultInjector, RateLimiter } from './faults.ts';
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
  billingAddress: Record<string, unknown> | null;
}

export interface RequestLogEntry {
  time: string;
  method: string;
  path: string;
  /** 0 when the sandbox never answered (timeout or drop-after-commit faults). */
  status: number;
}

export interface SandboxSettings {
  partner: string;
  token: string;
  rateLimit: number | undefined;
}

/** Everything the sandbox knows; one instance per running server, all in memory. */
export class SandboxState {
  readonly clock = new SandboxClock();
  readonly faults = new FaultInjector();
  readonly rateLimiter: RateLimiter;
  readonly businesses = new Map<string, Business>();
  readonly installs = new Map<string, Install>();
  requestLog: RequestLogEntry[] = [];
  hostnameCounter = 0;

  constructor(readonly settings: SandboxSettings) {
    this.rateLimiter = new RateLimiter(settings.rateLimit);
  }

  reset(): void {
    this.clock.reset();
    this.faults.clear();
    this.rateLimiter.reset();
    this.businesses.clear();
    this.installs.clear();
    this.requestLog = [];
    this.hostnameCounter = 0;
  }
}
