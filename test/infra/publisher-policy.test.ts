import { readFileSync } from 'node:fs';
import { runSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';
import { fillPolicy } from '#scripts/policy-placeholders.ts';

/**
 * The publisher policy of docs/deploy.md (docs/policies/publisher.json), filled in as a partner
 * fills it, evaluated by the evaluator the local runtime enforces the template with
 * (@cloud-copilot/iam-simulate, local/iam/authorizer.ts): PutEvents with the inbound source is
 * allowed; an entry with the connector's outbound source — a forged result event — is refused,
 * alone or beside an inbound one (events:source holds every entry's source).
 */

const ACCOUNT = '111122223333';
const REGION = 'us-east-1';
const BUS = 'workforce-connector-acme-prod';
const BUS_ARN = `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${BUS}`;

const policy = fillPolicy(
  JSON.parse(readFileSync(new URL('../../docs/policies/publisher.json', import.meta.url), 'utf8')),
  {},
  { Region: REGION, Account: ACCOUNT, EventBusName: BUS, InboundSource: DEFAULT_INBOUND_SOURCE },
);

async function putEvents(sources: readonly string[], resource = BUS_ARN): Promise<string> {
  const simulation: Simulation = {
    request: {
      principal: `arn:aws:iam::${ACCOUNT}:role/partner-publisher`,
      action: 'events:PutEvents',
      resource: { resource, accountId: ACCOUNT },
      contextVariables: { 'events:source': [...sources], 'aws:SecureTransport': 'true' },
    },
    identityPolicies: [{ name: 'publisher', policy }],
    serviceControlPolicies: [],
    resourceControlPolicies: [],
  };
  const result = await runSimulation(simulation, {});
  if (result.resultType === 'error') throw new Error(JSON.stringify(result.errors));
  return result.overallResult;
}

describe('the publisher policy of docs/deploy.md', () => {
  it('allows PutEvents of inbound events on the connector bus', async () => {
    expect(await putEvents([DEFAULT_INBOUND_SOURCE])).toBe('Allowed');
  });

  it('refuses an entry with the outbound source, alone or beside an inbound one', async () => {
    expect(await putEvents([DEFAULT_OUTBOUND_SOURCE])).not.toBe('Allowed');
    expect(await putEvents([DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE])).not.toBe('Allowed');
  });

  it('refuses inbound events on another bus', async () => {
    expect(
      await putEvents([DEFAULT_INBOUND_SOURCE], `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/default`),
    ).not.toBe('Allowed');
  });
});
