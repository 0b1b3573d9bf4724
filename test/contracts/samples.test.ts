import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import {
  inboundContracts,
  inboundDetailTypes,
  outboundContracts,
  outboundDetailTypes,
} from '#functions/contracts/registry.ts';
import { demoAccount, inboundSamples, outboundSamples } from '#functions/contracts/samples.ts';
import { DEFAULT_INBOUND_SOURCE } from '#functions/contracts/source.ts';
import { samplePutEventsEntry, sampleSqsFifoBatch } from '#scripts/generate-schemas.ts';
import { decodeInboundMessage, decodeOptions } from './support.ts';

describe('sample details', () => {
  it.each(inboundDetailTypes)('the %s sample satisfies its inbound contract', (detailType) => {
    // Act
    const result = inboundContracts[detailType].schema.safeParse(inboundSamples[detailType]);

    // Assess
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(outboundDetailTypes)('the %s sample satisfies its outbound contract', (detailType) => {
    const result = outboundContracts[detailType].schema.safeParse(outboundSamples[detailType]);

    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('describes one demo account across every sample', () => {
    const accountIds = new Set(
      [...Object.values(inboundSamples), ...Object.values(outboundSamples)].map((detail) => detail.accountId),
    );

    expect([...accountIds]).toEqual([demoAccount.accountId]);
    expect(inboundSamples.AccountCreated.owner.email).toBe('owner@example.com');
    expect(inboundSamples.EmployeeChanged.employeeId).toBe(2);
    expect(inboundSamples.EmployeeChanged.customFields).toEqual({
      badgeNumber: 'B-17',
      forkliftCertified: true,
    });
    expect(inboundSamples.PayReturnsRequested.timesheetIds).toEqual([1001, 1002]);
    expect(inboundSamples.LocationCreated.areas).toHaveLength(2);
    expect(inboundSamples.BudgetSet.days).toHaveLength(7);
    // New-library award codes are mixed-case alphanumeric.
    expect(inboundSamples.EmployeeChanged.payRate?.awardCode).toMatch(/^(?=.*[a-z])(?=.*[A-Z])[A-Za-z0-9]+$/);
    expect(inboundSamples.EmployeeChanged.regularHours?.details.weeks.length).toBeGreaterThan(0);
  });

  it('applies the documented defaults when a LocationCreated detail omits them', () => {
    const { isWorkplace: _w, isPayrollEntity: _p, ...withoutFlags } = inboundSamples.LocationCreated;

    const parsed = inboundContracts.LocationCreated.schema.parse(withoutFlags);

    expect(parsed.isWorkplace).toBe(true);
    expect(parsed.isPayrollEntity).toBe(false);
  });

  it('defaults AccountCreated region to US and BudgetSet timeZone to UTC', () => {
    const { region: _r, ...account } = inboundSamples.AccountCreated;
    const { timeZone: _t, ...budget } = inboundSamples.BudgetSet;

    expect(inboundContracts.AccountCreated.schema.parse(account).region).toBe('US');
    expect(inboundContracts.BudgetSet.schema.parse(budget).timeZone).toBe('UTC');
  });
});

describe('sample events', () => {
  it.each(inboundDetailTypes)('the %s SQS batch decodes to its sample detail', (detailType) => {
    // Prepare
    const record = sampleSqsFifoBatch(detailType).Records[0]!;

    // Act
    const decoded = decodeInboundMessage(record.body, decodeOptions);

    // Assess
    expect(decoded).toMatchObject({ ok: true, event: { detailType, source: DEFAULT_INBOUND_SOURCE } });
    expect(record.eventSource).toBe('aws:sqs');
    expect(record.attributes.MessageGroupId).toBe(demoAccount.accountId);
    expect(record.attributes.MessageDeduplicationId).toBe(JSON.parse(record.body).event.id);
    expect(record.md5OfBody).toBe(createHash('md5').update(record.body).digest('hex'));
  });

  it.each(inboundDetailTypes)(
    'the %s PutEvents entry carries the sample detail as a JSON string',
    (detailType) => {
      const entry = samplePutEventsEntry(detailType);

      expect(entry).toMatchObject({
        Source: DEFAULT_INBOUND_SOURCE,
        DetailType: detailType,
        // The bus the example config creates, which is also the local runtime's.
        EventBusName: 'workforce-connector-acme-prod',
      });
      expect(JSON.parse(entry.Detail)).toEqual(inboundSamples[detailType]);
    },
  );

  it('orders sample events in scenario order with unique ids and rising sequence numbers', () => {
    const records = inboundDetailTypes.map((detailType) => sampleSqsFifoBatch(detailType).Records[0]!);
    const times = records.map((record) => JSON.parse(record.body).event.time as string);
    const sequence = records.map((record) => BigInt(record.attributes.SequenceNumber));

    expect(new Set(records.map((record) => record.attributes.MessageDeduplicationId)).size).toBe(
      records.length,
    );
    expect([...times].sort()).toEqual(times);
    expect(sequence.every((value, index) => index === 0 || value > sequence[index - 1]!)).toBe(true);
  });
});
