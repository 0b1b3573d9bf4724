import { readFileSync } from 'node:fs';
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { claimSignup, markSignupUnconfirmed } from '#functions/store/signup.ts';
import type { Store } from '#functions/store/store.ts';
import { type RunningCommand, startCommand } from './child-process.ts';

/** The ready PutEvents entry of `events/inbound/<detailType>/`, with detail fields replaced by `patch`. */
export function sampleEntry(detailType: string, patch: Record<string, unknown> = {}): PutEventsRequestEntry {
  const entry = JSON.parse(
    readFileSync(
      new URL(`../../events/inbound/${detailType}/eventbridge-entry.json`, import.meta.url),
      'utf8',
    ),
  ) as PutEventsRequestEntry;
  return { ...entry, Detail: JSON.stringify({ ...JSON.parse(entry.Detail ?? '{}'), ...patch }) };
}

export interface ServeEndpoints {
  readonly sandbox: string;
  readonly dynamo: string;
  readonly events: string;
}

/**
 * `npm start -- --serve` in a child process on free ports (other test runs share this machine),
 * silent; resolves with the addresses its banner prints.
 */
export async function startServe(
  extraArgs: readonly string[] = [],
): Promise<{ serve: RunningCommand; endpoints: ServeEndpoints }> {
  const serve = startCommand('local/cli.ts', [
    '--serve',
    ...extraArgs,
    ...['--sandbox-port', '0', '--dynamo-port', '0', '--events-port', '0'],
    ...['--log-level', 'SILENT'],
  ]);
  const banner = await serve.waitFor(
    /sandbox\s+(http:\S+)[\s\S]*DynamoDB\s+(http:\S+)[\s\S]*AWS\s+(http:\S+)/,
    60_000,
  );
  return { serve, endpoints: { sandbox: banner[1]!, dynamo: banner[2]!, events: banner[3]! } };
}

/** A JSON answer of a serve-mode endpoint; anything but 2xx throws. */
export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/** Polls until `find` returns something: serve mode delivers asynchronously, like a real bus. */
export async function eventually<T>(
  find: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A signup that committed at the sandbox while the connector lost its answer (SIGNUP_UNCONFIRMED in
 * `store`): what `npm run signups` lists and `npm run resolve-signup` resolves. Answers its hostname.
 */
export async function lostSignup(sandboxUrl: string, store: Store, accountId: string): Promise<string> {
  const answer = await fetch(`${sandboxUrl}/connect/v1/partner/acme/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sandbox-token' },
    body: JSON.stringify({
      userData: { firstName: 'Ada', lastName: 'Owner', email: `${accountId}@example.com` },
      businessData: { externalId: accountId, portfolioName: `Shop ${accountId}` },
    }),
  });
  const { data } = (await answer.json()) as { data: { hostname: string } };
  await claimSignup(store, { accountId, eventId: `event-${accountId}`, region: 'US' });
  await markSignupUnconfirmed(store, accountId, {
    eventId: `event-${accountId}`,
    message: 'signup answer lost after commit',
  });
  return data.hostname;
}
