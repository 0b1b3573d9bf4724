import { readFileSync } from 'node:fs';
import type { Region } from '#functions/contracts/fields.ts';
import { type ConnectorConfig, EXAMPLE_CONFIG_FILE } from '#lib/config.ts';
import { localConnectorConfig } from '#local/template.ts';
import type { LenientReading } from '#sandbox/mode.ts';
import { type RunningSandbox, startSandbox } from '#sandbox/server.ts';

/**
 * `npm run preflight -- --local`: the example config checked against a sandbox started here. The
 * sandbox stands for a partner already live: one business of the partner exists (signed up here,
 * before the preflight, by this set-up and not through the preflight's read-only layer), and its
 * install holds more states than one QUERY answers in the spec's reading, as an install with many
 * countries would, so the query limit can be seen.
 */

export const LOCAL_TOKEN = 'sandbox-token';
/** States staged in the install: more than the sandbox's spec reading answers in one QUERY (500). */
export const STAGED_STATES = 600;
/** The staged states' country (a staged country, so that none of the seed's is changed). */
const STAGED_COUNTRY_ID = 9001;

export interface LocalPreflight {
  readonly sandbox: RunningSandbox;
  readonly config: ConnectorConfig;
  readonly hostname: string;
  close(): Promise<void>;
}

async function call(url: string, body: unknown, token?: string): Promise<unknown> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  const parsed = (await answer.json()) as unknown;
  if (!answer.ok) throw new Error(`local set-up: ${url} answered ${answer.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

export async function startLocalPreflight(lenient: readonly LenientReading[] = []): Promise<LocalPreflight> {
  const sandbox = await startSandbox({ port: 0, token: LOCAL_TOKEN, lenient });
  try {
    // The regions the example configures, each at its sandbox root.
    const example = JSON.parse(
      readFileSync(new URL(`../../${EXAMPLE_CONFIG_FILE}`, import.meta.url), 'utf8'),
    ) as {
      provisioningUrls: Record<string, string>;
    };
    const regions = Object.keys(example.provisioningUrls) as Region[];
    const config = localConnectorConfig({ sandboxUrl: sandbox.url, regions });
    const signup = (await call(
      `${sandbox.url}/connect/v1/partner/${config.partnerName}/signup`,
      {
        userData: { firstName: 'Pre', lastName: 'Flight', email: 'preflight@example.test' },
        businessData: { externalId: 'preflight-account', portfolioName: 'Preflight Cafe' },
      },
      LOCAL_TOKEN,
    )) as { data: { hostname: string } };
    const { hostname } = signup.data;
    const records = `${sandbox.url}/_sandbox/installs/${hostname}/records`;
    await call(`${records}/Country`, {
      Id: STAGED_COUNTRY_ID,
      Code: 'ZZ',
      CodeA3: 'ZZZ',
      Country: 'Staged Provinces',
      Active: true,
    });
    await call(
      `${records}/State`,
      Array.from({ length: STAGED_STATES }, (_, index) => ({
        Id: 900_000 + index,
        Country: STAGED_COUNTRY_ID,
        Code: `Z${index}`,
        State: `Staged Province ${index + 1}`,
        Active: true,
      })),
    );
    return { sandbox, config, hostname, close: () => sandbox.close() };
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}
