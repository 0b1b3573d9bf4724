import { describe, expect, it } from 'vitest';
import { inboundDetailTypes } from '#functions/contracts/registry.ts';
import {
  FIFO_MAX_BATCH_SIZE,
  MIN_EVENT_SOURCE_CONCURRENCY,
  queueRoutes,
  routeFor,
  routeForFunction,
  scheduledFunctions,
} from '#functions/routes.ts';

describe('route table', () => {
  it('routes every inbound detail-type to exactly one function', () => {
    const routed = queueRoutes.map((route) => route.detailType);

    expect([...routed].sort()).toEqual([...inboundDetailTypes].sort());
  });

  it('gives every function a unique name and a handler under its own folder', () => {
    const names = [...queueRoutes, ...scheduledFunctions].map((f) => f.functionName);

    expect(new Set(names).size).toBe(names.length);
    for (const f of [...queueRoutes, ...scheduledFunctions]) {
      expect(f.entry).toBe(`functions/${f.functionName}/handler.ts`);
      expect(f.handlerExport).toBe('handler');
      expect(f.functionName).toMatch(/^[a-z][a-z-]{1,40}$/);
    }
  });

  it.each(queueRoutes)('keeps $functionName within the SQS FIFO event source limits', (route) => {
    expect(route.batchSize).toBeGreaterThanOrEqual(1);
    expect(route.batchSize).toBeLessThanOrEqual(FIFO_MAX_BATCH_SIZE);
    expect(route.maxBatchingWindowSeconds).toBe(0);
    expect(route.maxConcurrency).toBeGreaterThanOrEqual(MIN_EVENT_SOURCE_CONCURRENCY);
    expect(route.maxConcurrency).toBeLessThanOrEqual(1000);
    expect(route.maxAttempts).toBeGreaterThanOrEqual(1);
    expect(route.timeoutSeconds).toBeGreaterThan(0);
    expect(route.timeoutSeconds).toBeLessThanOrEqual(900);
    expect(route.memorySizeMb).toBeGreaterThanOrEqual(128);
    expect(route.description.length).toBeGreaterThan(0);
  });

  it('maps the documented detail-types to their use cases', () => {
    expect(
      Object.fromEntries(
        inboundDetailTypes.map((detailType) => [detailType, routeFor(detailType).functionName]),
      ),
    ).toEqual({
      AccountCreated: 'provision-business',
      PlanChosen: 'change-plan',
      SubscriptionStatusRequested: 'subscription-status',
      EmployeeChanged: 'sync-employee',
      LocationCreated: 'provision-location',
      BudgetSet: 'save-budget',
      PayReturnsRequested: 'pay-returns',
      PayRatesRequested: 'pay-rates',
      ReferenceDataRequested: 'reference-data',
      RecordsRequested: 'read-records',
      TimesheetFieldsDefined: 'define-timesheet-fields',
      PayRateAssigned: 'assign-pay-rate',
    });
  });

  it('finds no route for a detail-type without a contract and finds routes by function name', () => {
    expect(routeFor('AccountDeleted')).toBeUndefined();
    expect(routeForFunction('save-budget')?.detailType).toBe('BudgetSet');
    expect(routeForFunction('trial-watch')).toBeUndefined();
  });

  it('schedules trial-watch and drift-watch hourly by default', () => {
    expect(scheduledFunctions).toEqual([
      expect.objectContaining({
        functionName: 'trial-watch',
        entry: 'functions/trial-watch/handler.ts',
        defaultSchedule: 'rate(1 hour)',
      }),
      expect.objectContaining({
        functionName: 'drift-watch',
        entry: 'functions/drift-watch/handler.ts',
        defaultSchedule: 'rate(1 hour)',
        queriesDriftIndex: true,
      }),
    ]);
  });
});
