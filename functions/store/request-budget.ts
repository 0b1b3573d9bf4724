import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { ThrottledError } from '#functions/domain/errors.ts';
import { BUDGET_MAX_WAIT_MS, type BudgetScope, type RequestBudget } from '#functions/service/http.ts';
import { requestBudgetKey } from './keys.ts';
import { isConditionalCheckFailure, type Store } from './store.ts';

/**
 * The connector-wide request budget: one bucket per provisioning root and one per install (and,
 * when configured, one for every call), shared by every Lambda through the table.
 *
 * Algorithm: GCRA, the Generic Cell Rate Algorithm (ITU-T I.371; the "virtual scheduling" form),
 * which is a token bucket kept as a single number: the theoretical arrival time `tat` of the next
 * request. With interval T = 1 s / rate and tolerance τ = (burst − 1) × T, a request at `now` is
 * allowed when tat ≤ now + τ, and then tat := max(tat, now) + T. One number per bucket means one
 * conditional UpdateItem per call in the common case (no read-modify-write of two attributes), and
 * the condition makes concurrent takers safe: DynamoDB applies an update only when its condition
 * expression holds on the item as stored, atomically ("Condition expressions" in the DynamoDB
 * Developer Guide; a failed check is ConditionalCheckFailedException and changes nothing).
 *
 *   - busy bucket (tat ≥ now): SET tat = tat + T  IF tat BETWEEN now AND now + τ + maxWait;
 *     the request's slot is the old tat − τ: the caller sleeps until then (a reservation, so
 *     concurrent takers queue in order, one conditional update each, and never race for a slot)
 *   - idle bucket (tat < now): SET tat = now + T  IF tat is absent OR tat < now: go at once
 *   - neither holds: the next slot is more than maxWait (BUDGET_MAX_WAIT_MS) away; the bucket is
 *     read (consistently) for the wait, nothing is reserved, and the record waits on its queue.
 *
 * A pause the service asks for (429 + Retry-After until P) sets tat := max(tat, P + τ): no one is
 * allowed before P, and after it requests flow at the rate again without a burst.
 *
 * Clocks: every Lambda compares against its own wall clock. Clock skew between hosts shifts when
 * a request is allowed by the skew, not how many are allowed per second.
 */

const bucketSettingsSchema = z.strictObject({
  /** Sustained requests per second. */
  ratePerSecond: z.number().positive().max(10_000),
  /** Requests that may go at once after an idle period. */
  burst: z.int().min(1).max(10_000),
});
export type BucketSettings = z.output<typeof bucketSettingsSchema>;

/**
 * The service's rate limits (and their scope) are not shown: these defaults are modest guesses a
 * deployment replaces with the service's real figures (deploy setting `requestBudget`).
 */
export const DEFAULT_REQUEST_BUDGET = {
  provisioning: { ratePerSecond: 5, burst: 5 },
  install: { ratePerSecond: 10, burst: 10 },
} as const;

/**
 * The budget of the local runtime (`npm start`, `serve`) and of the client integration tests: it
 * runs as deployed, its table requests included, with rates the sandbox (unlimited unless started
 * with a rate limit) never reaches, so a local run or a test is not slowed by guessed limits.
 * Chaos with `--rate-limit` replaces it with one overall bucket at 95 % of the sandbox's limit
 * (BUDGET_SHARE_OF_LIMIT, budgetForLimit in scripts/chaos/run.ts).
 */
export const LOCAL_REQUEST_BUDGET = {
  provisioning: { ratePerSecond: 500, burst: 100 },
  install: { ratePerSecond: 500, burst: 100 },
} as const satisfies RequestBudgetSettingsInput;

/** The deploy setting's schema; a deployment that sets no budget takes `defaultRequestBudgetSettings()`. */
export const requestBudgetSettingsSchema = z.strictObject({
  /** One bucket per provisioning root (region); null: none. */
  provisioning: bucketSettingsSchema.nullable().default(DEFAULT_REQUEST_BUDGET.provisioning),
  /** One bucket per install (hostname); null: none. */
  install: bucketSettingsSchema.nullable().default(DEFAULT_REQUEST_BUDGET.install),
  /**
   * One bucket every call also takes from: for a service whose limit covers the partner's token
   * as a whole (the scope of the service's rate limits is not shown). @default none
   */
  overall: bucketSettingsSchema.optional(),
});
export type RequestBudgetSettings = z.output<typeof requestBudgetSettingsSchema>;
export type RequestBudgetSettingsInput = z.input<typeof requestBudgetSettingsSchema>;

/** The settings of a deployment that sets no budget: what the schema makes of `{}`. */
export function defaultRequestBudgetSettings(): RequestBudgetSettings {
  return {
    provisioning: { ...DEFAULT_REQUEST_BUDGET.provisioning },
    install: { ...DEFAULT_REQUEST_BUDGET.install },
  };
}

/** What `onTake` hears of each take. */
export interface BudgetTake {
  readonly scope: BudgetScope;
  /** DynamoDB requests the take made. */
  readonly requests: number;
  /** When the take ended (epoch ms, the budget's clock): the call was sent then, or throttled. */
  readonly endedAt: number;
  /** How long it slept for its slot, just before `endedAt`. */
  readonly waitedMs: number;
  /** Set when the slot was too far away: the record waits this long on its queue from `endedAt`. */
  readonly throttledForMs?: number;
}

/** Idle buckets disappear after a day (TTL); one is recreated at its first take. */
const BUCKET_TTL_SECONDS = 24 * 60 * 60;

/** Attempts of the conditional updates before the bucket is read to learn the wait. */
const MAX_RACES = 4;

export interface RequestBudgetOptions {
  store: Store;
  settings: RequestBudgetSettings;
  /** Epoch milliseconds. @default Date.now, the wall clock other Lambdas compare with through the table */
  now?: () => number;
  /** @default setTimeout-based sleep */
  sleep?: (ms: number) => Promise<void>;
  /** Called once per call that takes from the budget (or is throttled by it). */
  onTake?: (take: BudgetTake) => void;
}

interface Bucket {
  key: string;
  intervalMs: number;
  toleranceMs: number;
}

export function createRequestBudget(options: RequestBudgetOptions): RequestBudget {
  const { store, settings } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // The last `tat` seen per bucket: picks which update to try first (busy or idle).
  const lastSeen = new Map<string, number>();

  const bucket = (key: string, bucketSettings: BucketSettings): Bucket => {
    const intervalMs = 1000 / bucketSettings.ratePerSecond;
    return { key, intervalMs, toleranceMs: (Math.max(1, bucketSettings.burst) - 1) * intervalMs };
  };
  const bucketsOf = (scope: BudgetScope): Bucket[] => {
    const ownSettings = scope.kind === 'provisioning' ? settings.provisioning : settings.install;
    const own = ownSettings
      ? [
          bucket(
            scope.kind === 'provisioning' ? `root#${scope.region}` : `install#${scope.hostname}`,
            ownSettings,
          ),
        ]
      : [];
    return settings.overall ? [...own, bucket('all', settings.overall)] : own;
  };

  const update = async (
    target: Bucket,
    expression: string,
    condition: string,
    values: Record<string, number>,
  ): Promise<number | undefined> => {
    try {
      const { Attributes } = await store.doc.send(
        new UpdateCommand({
          TableName: store.tableName,
          Key: requestBudgetKey(target.key),
          UpdateExpression: `${expression}, #ttl = :ttl`,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#tat': 'tat', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ...values, ':ttl': Math.floor(now() / 1000) + BUCKET_TTL_SECONDS },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.['tat']);
    } catch (error) {
      if (isConditionalCheckFailure(error)) return undefined;
      throw error;
    }
  };

  /**
   * Reserves the bucket's next request if it comes within `maxWaitMs`: answers how long to wait
   * for it (0: at once), or `undefined` plus the wait when it is further away (nothing reserved).
   */
  const reserve = async (
    target: Bucket,
    maxWaitMs: number,
    counter: { requests: number },
  ): Promise<{ waitMs: number; reserved: boolean }> => {
    for (let race = 0; race < MAX_RACES; race++) {
      const at = now();
      // Busy: the next slot is tat − τ; reserving it moves tat on by one interval, whoever else
      // reserves at the same moment gets the slot after (FIFO among takers, one request each).
      // Each answers the `tat` it wrote (undefined: its condition did not hold, nothing written).
      const busy = () =>
        update(target, 'SET #tat = #tat + :interval', '#tat BETWEEN :now AND :limit', {
          ':interval': target.intervalMs,
          ':now': at,
          ':limit': at + target.toleranceMs + maxWaitMs,
        });
      const idle = () =>
        update(target, 'SET #tat = :next', 'attribute_not_exists(#tat) OR #tat < :now', {
          ':next': at + target.intervalMs,
          ':now': at,
        });
      const seen = lastSeen.get(target.key);
      const [first, second] = seen !== undefined && seen >= at ? [busy, idle] : [idle, busy];
      counter.requests++;
      let written = await first();
      if (written === undefined) {
        counter.requests++;
        written = await second();
      }
      if (written !== undefined) {
        // Remember exactly what the table holds now, so the next take tries the update whose
        // condition holds first (one request); the slot of this request is the new tat − T − τ.
        lastSeen.set(target.key, written);
        const waitMs = Math.max(0, written - target.intervalMs - target.toleranceMs - at);
        return { waitMs: Math.ceil(waitMs), reserved: true };
      }
      // Neither: the next slot is further than maxWaitMs away; read how far, to say when to come back.
      counter.requests++;
      const { Item } = await store.doc.send(
        new GetCommand({
          TableName: store.tableName,
          Key: requestBudgetKey(target.key),
          ConsistentRead: true,
        }),
      );
      const stored = Number(Item?.['tat']);
      if (!Number.isFinite(stored)) continue;
      lastSeen.set(target.key, stored);
      const untilSlotMs = Math.ceil(stored - target.toleranceMs - now());
      if (untilSlotMs > maxWaitMs) return { waitMs: untilSlotMs, reserved: false };
      // The bucket moved between the updates and the read: try again.
    }
    return { waitMs: Math.ceil(target.intervalMs), reserved: false };
  };

  return {
    async take(scope) {
      const counter = { requests: 0 };
      let waitedMs = 0;
      let throttledForMs: number | undefined;
      try {
        // Each bucket's slot is reserved in turn; the call goes at the latest of them.
        let goAt = 0;
        for (const target of bucketsOf(scope)) {
          const { waitMs, reserved } = await reserve(target, BUDGET_MAX_WAIT_MS, counter);
          if (!reserved) {
            throttledForMs = waitMs;
            throw new ThrottledError(
              `the request budget of ${describe(scope)} has no request for ${waitMs} ms; the record waits on its queue`,
              waitMs,
            );
          }
          goAt = Math.max(goAt, now() + waitMs);
        }
        const waitMs = goAt - now();
        if (waitMs > 0) {
          await sleep(waitMs);
          waitedMs = waitMs;
        }
      } finally {
        options.onTake?.({
          scope,
          requests: counter.requests,
          endedAt: now(),
          waitedMs,
          ...(throttledForMs === undefined ? {} : { throttledForMs }),
        });
      }
    },

    async pause(scope, untilMs) {
      for (const target of bucketsOf(scope)) {
        const tat = await update(
          target,
          'SET #tat = :paused',
          'attribute_not_exists(#tat) OR #tat < :paused',
          {
            ':paused': untilMs + target.toleranceMs,
          },
        );
        if (tat !== undefined) lastSeen.set(target.key, tat);
      }
    },
  };
}

function describe(scope: BudgetScope): string {
  return scope.kind === 'provisioning'
    ? `the ${scope.region} provisioning root`
    : `install ${scope.hostname}`;
}
