import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_ATTEMPTS } from '#functions/runtime/retry-schedule.ts';
import { getBusiness } from '#functions/store/business.ts';
import { createStore } from '#functions/store/store.ts';
import type { LocalRuntime } from '#local/runtime.ts';
import type { ChaosEvent, Workload } from './workload.ts';

/**
 * What an operator does about unconfirmed signups (SyncFailed SIGNUP_COMMITTED_UNCONFIRMED), done by
 * the chaos run during phase 2 (docs/provisioning.md, runbook): find the business the service holds
 * for the account and record it with `npm run resolve-signup`, run as its own process against the
 * local runtime (`--local`). The account's events published meanwhile wait for the business on their
 * queues, uncounted (domain/provisioned-business.ts), and apply after it, with no redrive. The run
 * resolves an account once its waiting events have outlived the retry budget they would have had as
 * counted attempts: a record of it received more than DEFAULT_MAX_ATTEMPTS times.
 */

export interface SignupResolution {
  /** Accounts whose signup was UNCONFIRMED once phase 1 was over. */
  readonly unconfirmed: number;
  /** Of those, recorded by `npm run resolve-signup`. */
  readonly resolved: number;
  /**
   * Whether, before resolving, every one of those accounts had a record received more than
   * DEFAULT_MAX_ATTEMPTS times, or no event left unanswered (else the run resolved after
   * WAIT_TIMEOUT_MS without seeing that).
   */
  readonly waitedPastBudget: boolean;
  /** Event ids of those accounts' sent events that had no answer yet when they were resolved. */
  readonly waitingEventIds: readonly string[];
}

/** The longest the run waits to see that before it resolves anyway (and says which account it lacked). */
const WAIT_TIMEOUT_MS = 600_000;
const POLL_MS = 50;
/** Tries of one `resolve-signup` (the sandbox still injects faults; the command fails on one it cannot retry). */
const RESOLVE_TRIES = 3;
const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));

/** Accounts of the workload whose business the table holds UNCONFIRMED. */
export async function unconfirmedAccounts(runtime: LocalRuntime, workload: Workload): Promise<Set<string>> {
  const store = createStore({ tableName: runtime.tableName });
  try {
    const found = new Set<string>();
    for (const account of workload.accounts) {
      if ((await getBusiness(store, account.accountId))?.status === 'UNCONFIRMED')
        found.add(account.accountId);
    }
    return found;
  } finally {
    store.client.destroy();
  }
}

/**
 * Waits until the only records left on the connector's queues (dead-letter queues aside) are those
 * of `accounts`, each of which has been received again after its wait; then resolves every one of
 * the accounts with `npm run resolve-signup` and returns what it did.
 */
export async function resolveUnconfirmedSignups(options: {
  readonly runtime: LocalRuntime;
  readonly sandboxUrl: string;
  readonly accounts: ReadonlySet<string>;
  readonly sent: ReadonlyMap<string, ChaosEvent>;
  readonly progress: (line: string) => void;
}): Promise<SignupResolution> {
  const { runtime, accounts, progress } = options;
  if (accounts.size === 0)
    return { unconfirmed: 0, resolved: 0, waitedPastBudget: true, waitingEventIds: [] };
  const unanswered = () => {
    const answered = new Set<string>();
    for (const event of runtime.outbound()) {
      for (const key of [event.detail['causationId'], event.detail['sourceEventId']]) {
        if (typeof key === 'string') answered.add(key);
      }
    }
    return [...options.sent]
      .filter(
        ([id, event]) =>
          accounts.has(event.account) && event.detailType !== 'AccountCreated' && !answered.has(id),
      )
      .map(([id, event]) => ({ id, account: event.account }));
  };
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  let notYet = accountsNotWaitedPastBudget(runtime, unanswered());
  while (notYet.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    notYet = accountsNotWaitedPastBudget(runtime, unanswered());
  }
  const waitedPastBudget = notYet.length === 0;
  if (!waitedPastBudget) {
    progress(
      `no record received more than ${DEFAULT_MAX_ATTEMPTS} times after ${WAIT_TIMEOUT_MS / 1000} s for ${notYet.join(', ')}`,
    );
  }
  const waitingEventIds = unanswered().map(({ id }) => id);
  progress(
    `resolving ${accounts.size} unconfirmed signup(s) with npm run resolve-signup; ${waitingEventIds.length} of their events are waiting${
      waitedPastBudget ? `, each account's past the ${DEFAULT_MAX_ATTEMPTS}-attempt budget` : ''
    }`,
  );
  const businesses = (await (await fetch(`${options.sandboxUrl}/_sandbox/businesses`)).json()) as Array<{
    hostname: string;
    externalId: string;
  }>;
  let resolved = 0;
  for (const accountId of accounts) {
    const held = businesses.filter((business) => business.externalId === accountId);
    const hostname = held[0]?.hostname;
    if (held.length !== 1 || hostname === undefined) {
      // The verdict reports it as a mismatch: an UNCONFIRMED account the service holds ≠ 1 business of.
      progress(`not resolved: the service holds ${held.length} businesses for ${accountId}`);
      continue;
    }
    if (await resolveSignup(runtime, accountId, hostname, progress)) resolved++;
  }
  return { unconfirmed: accounts.size, resolved, waitedPastBudget, waitingEventIds };
}

/**
 * The accounts of `unanswered` events none of whose records on the connector's queues has been
 * received more than DEFAULT_MAX_ATTEMPTS times yet: as counted attempts, such a record would have
 * given up by then.
 */
function accountsNotWaitedPastBudget(
  runtime: LocalRuntime,
  unanswered: ReadonlyArray<{ readonly account: string }>,
): string[] {
  const waited = new Set<string>();
  for (const queue of runtime.deployment.queues.values()) {
    for (const message of queue.messages()) {
      if (message.receiveCount <= DEFAULT_MAX_ATTEMPTS) continue;
      const account = message.groupId ?? accountOf(message.body);
      if (account !== undefined) waited.add(account);
    }
  }
  return [...new Set(unanswered.map(({ account }) => account))].filter((account) => !waited.has(account));
}

/** The accountId of a queued event: an intake message is the event, a route message wraps it. */
function accountOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as {
      detail?: { accountId?: unknown };
      event?: { detail?: { accountId?: unknown } };
    };
    const accountId = parsed.event?.detail?.accountId ?? parsed.detail?.accountId;
    return typeof accountId === 'string' ? accountId : undefined;
  } catch {
    return undefined;
  }
}

/** `npm run resolve-signup -- --local <endpoint> --account A --hostname H`, as an operator runs it. */
async function resolveSignup(
  runtime: LocalRuntime,
  accountId: string,
  hostname: string,
  progress: (line: string) => void,
): Promise<boolean> {
  for (let attempt = 1; attempt <= RESOLVE_TRIES; attempt++) {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '--import',
          'tsx',
          'scripts/resolve-signup.ts',
          ...['--local', runtime.eventsEndpoint, '--account', accountId, '--hostname', hostname],
        ],
        {
          cwd: REPOSITORY,
          // An operator's shell: the command finds table, secret and endpoints through --local.
          env: { PATH: process.env['PATH'] ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
          timeout: 60_000,
        },
        (error, stdout, stderr) => {
          const exit = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
          resolve({ code: exit, output: `${stdout}${stderr}`.trim() });
        },
      );
    });
    const firstLine = output.split('\n')[0] ?? '';
    if (code === 0) {
      progress(`resolve-signup ${accountId}: ${firstLine}`);
      return true;
    }
    progress(`resolve-signup ${accountId} (try ${attempt}/${RESOLVE_TRIES}) exited ${code}: ${firstLine}`);
  }
  return false;
}
