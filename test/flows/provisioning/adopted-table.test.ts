import { describe, expect, it } from 'vitest';
import { getAccountByHostname, getBusiness } from '#functions/store/business.ts';
import {
  accountCreatedDetail,
  inboundEvent,
  sandboxBusinessOf,
  sqsFifoBatch,
  uniqueAccountId,
  useFlowHarness,
} from '#test/flows/support/harness.ts';

/**
 * Issue 28, point 3: a deployment that adopts an existing table (config `state.existingTableName`,
 * e.g. one restored from point-in-time recovery) synthesizes no table; the local runtime, whose
 * account is dynalite, holds that table as the account would (local/runtime/tables-and-secrets.ts),
 * and the functions provision into it under its own name, with the template's IAM enforced.
 */

const ADOPTED_TABLE = 'workforce-connector-acme-prod-restored';

const flow = useFlowHarness({ config: { state: { existingTableName: ADOPTED_TABLE } } });

describe('state.existingTableName', () => {
  it('runs against the adopted table: no table in the template, the functions writing to that one', async () => {
    // Prepare
    const accountId = uniqueAccountId('adopted');
    const event = inboundEvent('AccountCreated', accountCreatedDetail(accountId));

    // Act
    const response = await flow.invokeBatch('provision-business', sqsFifoBatch([event]));

    // Assess
    expect(flow.runtime.deployment.tables).toEqual([]);
    expect(flow.runtime.tableName).toBe(ADOPTED_TABLE);
    expect(flow.env['TABLE_NAME']).toBe(ADOPTED_TABLE);
    expect(response.batchItemFailures).toEqual([]);
    const [business] = await sandboxBusinessOf(flow, accountId);
    expect(flow.publishedFor(accountId, 'BusinessProvisioned')).toHaveLength(1);
    expect(await getBusiness(flow.store, accountId)).toMatchObject({
      status: 'ACTIVE',
      hostname: business?.hostname,
    });
    expect(await getAccountByHostname(flow.store, business?.hostname ?? '')).toBe(accountId);
    expect(flow.runtime.denied()).toEqual([]);
  });
});
