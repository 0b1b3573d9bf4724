import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type Json, startTestSandbox } from './harness.ts';

const { sandbox, call, signup, install } = await startTestSandbox();
afterAll(() => sandbox.close());

let api: ReturnType<typeof install>;
let hostname: string;
beforeEach(async () => {
  await call('POST', '/_sandbox/reset');
  hostname = await signup();
  api = install(hostname);
});

const DEFINE = '/api/v1/resource/CustomField';
const question = { System: 'Timesheet', Name: 'Approved?', ApiName: 'approved', Type: 4 };

describe('timesheet custom field definition (assumed path)', () => {
  it('creates a definition on the first free slot and lists it with QUERY CustomField', async () => {
    // Act
    const created = await api.call('POST', DEFINE, { ...question, Validation: 'nempty\nunq' });
    const listed = await api.call('POST', '/api/v1/resource/CustomField/QUERY', {
      search: { s1: { field: 'System', type: 'eq', data: 'Timesheet' } },
    });

    // Assess
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      Id: 1,
      ApiName: 'approved',
      Type: 4,
      Slot: 'F01',
      Validation: 'nempty\nunq',
    });
    expect((listed.body as Json[]).map((definition) => definition.ApiName)).toEqual(['approved']);
  });

  it.each([
    ['a type the spec does not list', { Type: 7 }, 'Type'],
    ['a list type without Valuelist', { Type: 5 }, 'Valuelist'],
    ['a validation token the spec does not show', { Validation: 'nempty\nsometimes' }, 'sometimes'],
    ['another system', { System: 'Employee' }, 'System'],
  ])('refuses %s with VALIDATION_ERROR', async (_case, change, named) => {
    // Act
    const reply = await api.call('POST', DEFINE, { ...question, ...change });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message: expect.stringContaining(named) },
    });
  });

  it('refuses the 129th definition with 422 CUSTOM_FIELD_LIMIT and accepts a second of one ApiName', async () => {
    // Prepare
    await call(
      'POST',
      `/_sandbox/installs/${hostname}/records/CustomField`,
      Array.from({ length: 127 }, (_, index) => ({
        ...question,
        ApiName: `q${index}`,
        Slot: `F${String(index + 1).padStart(2, '0')}`,
      })),
    );

    // Act
    const last = await api.call('POST', DEFINE, { ...question, ApiName: 'q0' });
    const over = await api.call('POST', DEFINE, question);

    // Assess: the spec does not say a repeated ApiName is refused; only the limit is.
    expect(last.body).toMatchObject({ ApiName: 'q0', Slot: 'F128' });
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ error: { code: 'CUSTOM_FIELD_LIMIT' } });
  });

  it("mirrors a definition's slot under its ApiName in timesheet custom field data", async () => {
    // Prepare
    await api.call('POST', DEFINE, question);
    await call('POST', `/_sandbox/installs/${hostname}/records/CustomFieldData`, {
      Id: 900,
      System: 'Timesheet',
      F01: true,
    });

    // Act
    const reply = await api.call('POST', '/api/v1/resource/CustomFieldData/QUERY', {
      search: { s1: { field: 'Id', type: 'eq', data: 900 } },
    });

    // Assess
    expect(reply.body).toEqual([expect.objectContaining({ Id: 900, F01: true, approved: true })]);
  });
});

describe('employees:bulk (assumed request and answer)', () => {
  it('gives each employee an agreement like the given one and fails an unknown employee alone', async () => {
    // Act
    const reply = await api.call('POST', '/api/management/v2/employees:bulk', {
      agreementId: 1,
      employeeIds: [2, 9999, 3],
    });

    // Assess
    expect(reply.status).toBe(200);
    const [two, unknown, three] = (reply.body as Json).data as Json[];
    expect(two).toMatchObject({ employeeId: 2, success: true, agreementId: expect.any(Number) });
    expect(unknown).toMatchObject({ employeeId: 9999, success: false, error: { code: 'NOT_FOUND' } });
    expect(three).toMatchObject({ employeeId: 3, success: true });
    const agreements = (await api.dump()).EmployeeAgreement as Json[];
    const active = agreements.filter((agreement) => agreement.Active === true && agreement.EmployeeId === 2);
    expect(active).toEqual([
      expect.objectContaining({ Id: two.agreementId, Contract: agreements[0].Contract }),
    ]);
  });

  it('refuses an unknown agreement with 404', async () => {
    // Act
    const reply = await api.call('POST', '/api/management/v2/employees:bulk', {
      agreementId: 777,
      employeeIds: [2],
    });

    // Assess
    expect(reply.status).toBe(404);
  });
});
