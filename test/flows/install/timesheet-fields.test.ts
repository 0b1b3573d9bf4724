import { describe, expect, it } from 'vitest';
import { defineTimesheetFields } from '#functions/define-timesheet-fields/define-timesheet-fields.ts';
import type { Dependencies } from '#functions/runtime/dependencies.ts';
import { flowDependencies, useFlowHarness } from '#test/flows/support/harness.ts';
import {
  deliver,
  deliverWithCalls,
  type InvalidDetailCase,
  installRecords,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
  useCaseInput,
} from './install-support.ts';

const DEFINITIONS = 'POST /api/v1/resource/CustomField/QUERY';
const CREATE = 'POST /api/v1/resource/CustomField';

const flow = useFlowHarness();

const approved = { apiName: 'supervisorApproved', name: 'Approved by the supervisor?', type: 4 };
const reason = {
  apiName: 'overtimeReason',
  name: 'Reason for overtime',
  type: 5,
  valuelist: ['Demand', 'Cover'],
  validation: ['nempty'],
};

async function definitionsOf(hostname: string) {
  return (await installRecords(flow, hostname))['CustomField'] ?? [];
}

describe('TimesheetFieldsDefined', () => {
  it('creates each missing definition once, with the spec payload, and reports the rest as existing', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'tsf-create');
    await deliver(flow, 'define-timesheet-fields', 'TimesheetFieldsDefined', {
      accountId,
      fields: [approved],
    });

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'define-timesheet-fields',
      'TimesheetFieldsDefined',
      { accountId, fields: [approved, reason] },
    );

    // Assess
    expect(calls).toEqual([DEFINITIONS, CREATE]);
    const synced = onlyPublished(delivery, 'TimesheetFieldsSynced');
    expect(synced).toMatchObject({
      hostname,
      created: [{ apiName: 'overtimeReason', definitionId: expect.any(Number) }],
      existing: [{ apiName: 'supervisorApproved', definitionId: expect.any(Number) }],
      refused: [],
      total: 2,
      limit: 128,
    });
    const definitions = await definitionsOf(hostname);
    expect(definitions.map((definition) => definition['ApiName'])).toEqual([
      'supervisorApproved',
      'overtimeReason',
    ]);
    expect(definitions[1]).toMatchObject({
      System: 'Timesheet',
      Name: 'Reason for overtime',
      Type: 5,
      Valuelist: ['Demand', 'Cover'],
      Validation: 'nempty',
    });
  });

  it('creates nothing for a second event with the same apiName: one read, no create', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'tsf-twice');
    await deliver(flow, 'define-timesheet-fields', 'TimesheetFieldsDefined', {
      accountId,
      fields: [reason],
    });

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'define-timesheet-fields',
      'TimesheetFieldsDefined',
      { accountId, fields: [reason] },
    );

    // Assess
    expect(calls).toEqual([DEFINITIONS]);
    expect(onlyPublished(delivery, 'TimesheetFieldsSynced')).toMatchObject({ created: [], total: 1 });
    expect(await definitionsOf(hostname)).toHaveLength(1);
  });

  it('refuses with TIMESHEET_FIELD_LIMIT naming the limit and the counts when the 129th field would be made', async () => {
    // Prepare: 127 definitions already in the install.
    const { accountId, hostname } = await provisionedInstall(flow, 'tsf-limit');
    await flow.sandbox(
      'POST',
      `/_sandbox/installs/${hostname}/records/CustomField`,
      Array.from({ length: 127 }, (_, index) => ({
        System: 'Timesheet',
        Name: `Question ${index + 1}`,
        ApiName: `question${index + 1}`,
        Type: 1,
        Slot: `F${String(index + 1).padStart(2, '0')}`,
      })),
    );

    // Act
    const { delivery, calls } = await deliverWithCalls(
      flow,
      hostname,
      'define-timesheet-fields',
      'TimesheetFieldsDefined',
      { accountId, fields: [approved, reason, { ...approved, apiName: 'question1' }] },
    );

    // Assess
    expect(calls).toEqual([DEFINITIONS]);
    const failed = onlyPublished(delivery, 'SyncFailed');
    expect(failed).toMatchObject({ code: 'TIMESHEET_FIELD_LIMIT', detailType: 'TimesheetFieldsDefined' });
    expect(failed['message']).toContain('129 timesheet custom fields and the service allows 128');
    expect(failed['message']).toContain('127 exist, 2 of the 3 asked for are new');
    expect(await definitionsOf(hostname)).toHaveLength(127);
  });

  it('creates the 128th field', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'tsf-128');
    await flow.sandbox(
      'POST',
      `/_sandbox/installs/${hostname}/records/CustomField`,
      Array.from({ length: 127 }, (_, index) => ({
        System: 'Timesheet',
        ApiName: `question${index + 1}`,
        Type: 1,
        Slot: `F${String(index + 1).padStart(2, '0')}`,
      })),
    );

    // Act
    const delivery = await deliver(flow, 'define-timesheet-fields', 'TimesheetFieldsDefined', {
      accountId,
      fields: [approved],
    });

    // Assess
    expect(onlyPublished(delivery, 'TimesheetFieldsSynced')).toMatchObject({
      created: [{ apiName: 'supervisorApproved' }],
      total: 128,
    });
  });

  it('reports a field the service refuses and still creates the others', async () => {
    // Prepare: area 999 does not exist in the install.
    const { accountId, hostname } = await provisionedInstall(flow, 'tsf-refused');

    // Act
    const delivery = await deliver(flow, 'define-timesheet-fields', 'TimesheetFieldsDefined', {
      accountId,
      fields: [{ ...approved, areaIds: [999] }, reason],
    });

    // Assess
    expect(onlyPublished(delivery, 'TimesheetFieldsSynced')).toMatchObject({
      created: [{ apiName: 'overtimeReason' }],
      refused: [
        { apiName: 'supervisorApproved', code: 'NOT_FOUND', message: expect.stringContaining('999') },
      ],
      total: 1,
    });
    expect((await definitionsOf(hostname)).map((definition) => definition['ApiName'])).toEqual([
      'overtimeReason',
    ]);
  });

  it('reports as created, without a second create, a definition whose run stopped between create and record', async () => {
    // Prepare: the first run dies right after the service created the definition.
    const { accountId, hostname } = await provisionedInstall(flow, 'tsf-crash');
    const dependencies = await flowDependencies();
    const crashing: Dependencies = {
      ...dependencies,
      interruptions: {
        at(point) {
          if (point === 'define-timesheet-fields.after-create') throw new Error('the function died here');
        },
      },
    };
    const input = useCaseInput('TimesheetFieldsDefined', { accountId, fields: [approved] });
    await expect(defineTimesheetFields(input, crashing)).rejects.toThrow('the function died here');

    // Act: the redelivery of the same event.
    const [synced] = await defineTimesheetFields(input, dependencies);

    // Assess
    expect(synced?.detail).toMatchObject({ created: [{ apiName: 'supervisorApproved' }], existing: [] });
    expect(await definitionsOf(hostname)).toHaveLength(1);
  });

  it('makes one definition when two events for one apiName run at once: the other retries and finds it', async () => {
    // Prepare: two events of one account, as if two deliveries ran together.
    const { accountId, hostname } = await provisionedInstall(flow, 'tsf-race');
    const dependencies = await flowDependencies();
    const inputs = [
      useCaseInput('TimesheetFieldsDefined', { accountId, fields: [approved] }),
      useCaseInput('TimesheetFieldsDefined', { accountId, fields: [approved] }),
    ];

    // Act
    const first = await Promise.allSettled(inputs.map((input) => defineTimesheetFields(input, dependencies)));
    const retried = await Promise.all(
      inputs
        .filter((_, index) => first[index]?.status === 'rejected')
        .map((input) => defineTimesheetFields(input, dependencies)),
    );

    // Assess
    expect(await definitionsOf(hostname)).toHaveLength(1);
    const details = [
      ...first.flatMap((result) => (result.status === 'fulfilled' ? result.value : [])),
      ...retried.flat(),
    ].map((event) => event.detail as Record<string, unknown[]>);
    expect(details).toHaveLength(2);
    expect(details.flatMap((detail) => detail['created'])).toEqual([
      expect.objectContaining({ apiName: 'supervisorApproved' }),
    ]);
    expect(details.flatMap((detail) => detail['existing'])).toEqual([
      expect.objectContaining({ apiName: 'supervisorApproved' }),
    ]);
  });

  it("shows a newly defined field's value in PayReturnsReady's timesheet context", async () => {
    // Prepare: define a field, then give timesheet 1001 (a schedule-change premium) a value in its slot.
    const { accountId, hostname } = await provisionedInstall(flow, 'tsf-payreturns');
    await deliver(flow, 'define-timesheet-fields', 'TimesheetFieldsDefined', {
      accountId,
      fields: [{ apiName: 'managerNote', name: 'Manager note', type: 1 }],
    });
    const records = await installRecords(flow, hostname);
    const slot = String(records['CustomField']?.[0]?.['Slot']);
    const timesheet = records['Timesheet']?.find((record) => record['Id'] === 1001);
    const data = records['CustomFieldData']?.find(
      (record) => record['Id'] === timesheet?.['CustomFieldData'],
    );
    await flow.sandbox('POST', `/_sandbox/installs/${hostname}/records/CustomFieldData`, {
      ...data,
      [slot]: 'Stayed to close',
    });

    // Act
    const delivery = await deliver(flow, 'pay-returns', 'PayReturnsRequested', {
      accountId,
      timesheetIds: [1001],
    });

    // Assess
    expect(onlyPublished(delivery, 'PayReturnsReady')['timesheet']).toMatchObject({
      scheduleChangeAnswers: expect.objectContaining({ managerNote: 'Stayed to close' }),
    });
  });
});

describe('invalid TimesheetFieldsDefined', () => {
  const cases: InvalidDetailCase[] = [
    ['a type the service does not list (7)', { fields: [{ ...approved, type: 7 }] }, 'fields[0].type'],
    [
      'a list type without valuelist',
      { fields: [{ ...reason, valuelist: undefined }] },
      'fields[0].valuelist',
    ],
    [
      'a valuelist on a text field',
      { fields: [{ ...approved, type: 1, valuelist: ['a'] }] },
      'fields[0].valuelist',
    ],
    [
      'a validation token not shown',
      { fields: [{ ...approved, validation: ['maybe'] }] },
      'fields[0].validation[0]',
    ],
    [
      'one apiName twice',
      { fields: [approved, { ...reason, apiName: approved.apiName }] },
      'fields[1].apiName',
    ],
    [
      '129 fields',
      {
        fields: Array.from({ length: 129 }, (_, index) => ({ ...approved, apiName: `q${index}` })),
      },
      'fields',
    ],
  ];
  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'define-timesheet-fields',
      detailType: 'TimesheetFieldsDefined',
      accountLabel: 'tsf-invalid',
      detail: (accountId, overrides) => ({ accountId, fields: [approved], ...overrides }),
    },
    cases,
  );
});
