import { describe, expect, it } from 'vitest';
import { functionTargets } from '#bench/bundle.ts';
import * as planChosen from '#functions/contracts/inbound/plan-chosen.ts';
import { inboundContracts } from '#functions/contracts/registry.ts';
import { createRouteDecoder, INBOUND_DETAIL_TYPES } from '#functions/contracts/route-decoder.ts';
import { queueRoutes, refusalFunction, scheduledFunctions } from '#functions/routes.ts';
import { connectorBundling } from '#lib/connector-function.ts';
import { esbuildOptionsOf } from '#lib/deploy-bundling.ts';
import { functionBundleInputs } from '#local/function-bundles.ts';

/** Every source file esbuild put into a function's deploy bundle (the one the local runtime runs). */
const inputsOf = functionBundleInputs;

/** Connector source files esbuild put into a function's deploy bundle. */
async function connectorInputsOf(entry: string): Promise<string[]> {
  return (await inputsOf(entry)).filter((input) => input.startsWith('functions/'));
}

/** A route FIFO message body, as the intake pipe writes it. */
function envelope(detailType: string, detail: Record<string, unknown>): string {
  return JSON.stringify({
    event: {
      version: '0',
      id: 'event-1',
      'detail-type': detailType,
      source: 'partner.app',
      account: '123456789012',
      time: '2025-03-03T09:00:00Z',
      region: 'us-east-1',
      resources: [],
      detail,
    },
  });
}

describe('per-route deploy bundles', () => {
  it('carry their own inbound contract and none of the registry or other routes’ contracts', async () => {
    // Prepare
    const targets = functionTargets();

    // Act
    const inputs = await Promise.all(targets.map((target) => connectorInputsOf(target.entry)));

    // Assess
    for (const [index, target] of targets.entries()) {
      const files = inputs[index] ?? [];
      const inbound = files.filter((file) => file.includes('contracts/inbound/'));
      expect(files, target.name).not.toContain('functions/contracts/registry.ts');
      expect(inbound.length, target.name).toBeLessThanOrEqual(1);
      // Every outbound contract a bundle holds is one its function publishes (its result event, and
      // SyncSkipped where an event can be superseded), or SyncFailed.
      expect(
        files.filter((file) => file.includes('contracts/outbound/')).length,
        target.name,
      ).toBeLessThanOrEqual(3);
    }
  });

  it('carry SyncSkipped in exactly the routes that keep the newest event per thing', async () => {
    // Prepare
    const targets = functionTargets();

    // Act
    const inputs = await Promise.all(targets.map((target) => connectorInputsOf(target.entry)));
    const carrying = targets
      .filter((_, index) => (inputs[index] ?? []).includes('functions/contracts/outbound/sync-skipped.ts'))
      .map((target) => target.name);

    // Assess
    expect(carrying.sort()).toEqual([
      'assign-pay-rate',
      'change-plan',
      'provision-location',
      'save-budget',
      'sync-employee',
    ]);
  });

  it('bundle no module of the local IAM evaluator (AGPL-3.0-or-later: local runtime and tests only)', async () => {
    // Prepare: every function the template deploys.
    const entries = [...queueRoutes, ...scheduledFunctions, refusalFunction].map((fn) => fn.entry);

    // Act
    const inputs = await Promise.all(entries.map((entry) => inputsOf(entry)));

    // Assess: @cloud-copilot/iam-simulate and its data are devDependencies of local/iam/ only.
    for (const [index, entry] of entries.entries()) {
      expect(inputs[index]?.length, entry).toBeGreaterThan(0);
      expect(
        inputs[index]?.filter((input) => input.includes('@cloud-copilot/')),
        entry,
      ).toEqual([]);
    }
  });

  it('know every inbound detail-type of the registry by name, in its order', () => {
    // Act
    const registered = Object.keys(inboundContracts);

    // Assess
    expect([...INBOUND_DETAIL_TYPES]).toEqual(registered);
  });
});

describe('route decoder', () => {
  const decode = createRouteDecoder(planChosen);

  it('decodes its own route’s events with its contract', () => {
    // Act
    const result = decode(envelope('PlanChosen', { accountId: 'acct-1', plan: 'FREE' }), {
      source: 'partner.app',
    });

    // Assess
    expect(result).toMatchObject({ ok: true, event: { detailType: 'PlanChosen', detail: { plan: 'FREE' } } });
  });

  it('calls another route’s event WRONG_ROUTE without judging a detail it has no contract for', () => {
    // Act
    const result = decode(envelope('BudgetSet', { accountId: 'acct-1', anything: true }), {
      source: 'partner.app',
    });

    // Assess
    expect(result).toMatchObject({
      ok: false,
      code: 'WRONG_ROUTE',
      detailType: 'BudgetSet',
      accountId: 'acct-1',
    });
  });

  it('still refuses an unknown detail-type and an invalid detail of its own', () => {
    // Act
    const unknown = decode(envelope('AccountDeleted', { accountId: 'acct-1' }), { source: 'partner.app' });
    const invalid = decode(envelope('PlanChosen', { accountId: 'acct-1', plan: 'GOLD' }), {
      source: 'partner.app',
    });

    // Assess
    expect(unknown).toMatchObject({ ok: false, code: 'UNKNOWN_DETAIL_TYPE' });
    expect(invalid).toMatchObject({ ok: false, code: 'INVALID_DETAIL' });
  });
});

describe('bench bundling options', () => {
  it('are the deploy bundling options, with the linked source map CDK builds', () => {
    // Act
    const options = esbuildOptionsOf(connectorBundling);

    // Assess
    expect(options).toMatchObject({
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      minify: true,
      sourcemap: 'linked',
      sourcesContent: false,
      legalComments: 'none',
      external: [],
    });
  });

  it('refuse a bundling option they cannot translate instead of silently dropping it', () => {
    // Act
    const translate = () => esbuildOptionsOf({ ...connectorBundling, keepNames: true });

    // Assess
    expect(translate).toThrow(/keepNames/);
  });
});
