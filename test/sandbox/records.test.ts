import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LENIENT_READING_NAMES } from '#sandbox/mode.ts';
import { type Json, startTestSandbox } from './harness.ts';

// Written for the sandbox's lenient readings (all on); what the spec reading does instead is
// tested in spec-readings.test.ts.
const { sandbox, call, signup, install } = await startTestSandbox({ lenient: LENIENT_READING_NAMES });
afterAll(() => sandbox.close());
beforeEach(async () => {
  await call('POST', '/_sandbox/reset');
});

const stage = (hostname: string, resource: string, body: unknown) =>
  call('POST', `/_sandbox/installs/${hostname}/records/${resource}`, body);

describe('POST /_sandbox/installs/{hostname}/records/{Resource}', () => {
  it('stores one record with the next id, the audit fields and _DPMetaData, and answers it', async () => {
    // Prepare
    const hostname = await signup();
    const { now } = (await call('GET', '/_sandbox/clock')).body;

    // Act
    const reply = await stage(hostname, 'EmployeeAgreement', { EmployeeId: 2, Contract: 1, BaseRate: null });

    // Assess
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      Id: 6,
      EmployeeId: 2,
      Contract: 1,
      BaseRate: null,
      Creator: 1,
      Created: expect.stringMatching(/\+00:00$/),
      Modified: expect.stringMatching(/\+00:00$/),
      _DPMetaData: expect.objectContaining({ System: 'EmployeeAgreement', CreatorInfo: expect.any(Object) }),
    });
    expect(Math.abs(Date.parse(reply.body.Created) - Date.parse(now))).toBeLessThan(5_000);
    const found = await install(hostname).query('EmployeeAgreement', {
      search: { s1: { field: 'EmployeeId', type: 'eq', data: 2 } },
    });
    expect(found.map((agreement: Json) => agreement.Id)).toEqual([2, 6]);
  });

  it('stores an array and answers the stored records in order; later creates never reuse their ids', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const reply = await stage(hostname, 'Company', [
      { CompanyName: 'Pop-up', IsWorkplace: 1 },
      { Id: 40, CompanyName: 'Depot', IsWorkplace: 1 },
    ]);
    const created = await install(hostname).call('PUT', '/api/v1/supervise/company', {
      CompanyName: 'After',
      IsWorkplace: 1,
    });

    // Assess
    expect(reply.body.map((record: Json) => [record.Id, record._DPMetaData.System])).toEqual([
      [3, 'Company'],
      [40, 'Company'],
    ]);
    expect(created.body.Id).toBe(41);
    expect((await install(hostname).dump()).Location.map((record: Json) => record.Id)).toEqual([
      1, 2, 3, 40, 41,
    ]);
  });

  it('replaces the record with the same Id, keeping what the caller sends as given', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    await stage(hostname, 'EmployeeAgreement', {
      Id: 1,
      EmployeeId: 1,
      Contract: 1,
      Active: true,
      Created: '2020-01-01T00:00:00+10:00',
      _DPMetaData: null,
    });

    // Assess
    const agreements = await install(hostname).query('EmployeeAgreement');
    expect(agreements).toHaveLength(5);
    expect(agreements[0]).toEqual({
      Id: 1,
      EmployeeId: 1,
      Contract: 1,
      Active: true,
      Creator: 1,
      Created: '2020-01-01T00:00:00+10:00',
      Modified: expect.any(String),
      _DPMetaData: null,
    });
  });

  it('gives custom field data every slot and timesheets their area and employee in _DPMetaData', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const fields = await stage(hostname, 'CustomFieldData', {
      System: 'Timesheet',
      F05: 'Yes, Schedule Change Accepted',
      fwwleavinglate: 'Yes, Schedule Change Accepted',
    });
    const timesheet = await stage(hostname, 'Timesheet', {
      Employee: 3,
      OperationalUnit: 2,
      CustomFieldData: fields.body.Id,
    });

    // Assess
    expect(fields.body).toMatchObject({ Id: 3, F01: null, F05: 'Yes, Schedule Change Accepted', F128: null });
    expect(timesheet.body.Id).toBe(1005);
    expect(timesheet.body._DPMetaData).toMatchObject({
      System: 'Timesheet',
      OperationalUnitInfo: {
        Id: 2,
        OperationalUnitName: 'Dispatch',
        Company: 2,
        CompanyName: 'Harbour Warehouse',
      },
      EmployeeInfo: { Id: 3, DisplayName: 'Riley Chen' },
    });
  });

  it('accepts the table names Location and Area for Company and OperationalUnit', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const reply = await stage(hostname, 'Area', { Company: 1, OperationalUnitName: 'Stockroom' });

    // Assess
    expect(reply.status).toBe(201);
    expect(reply.body._DPMetaData.System).toBe('OperationalUnit');
    const areas = await install(hostname).query('OperationalUnit', {
      search: { s1: { field: 'OperationalUnitName', type: 'eq', data: 'Stockroom' } },
    });
    expect(areas).toHaveLength(1);
  });

  it('refuses a resource QUERY does not read with 400 naming the ones it does', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const metric = await stage(hostname, 'Metric', { value: 1 });
    const unknown = await stage(hostname, 'Department', { Name: 'x' });

    // Assess
    for (const reply of [metric, unknown]) {
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe('VALIDATION_ERROR');
      expect(reply.body.error.message).toContain('EmployeeAgreement');
    }
  });

  it('refuses records that are not objects or carry an unusable Id, storing none of the batch', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const replies = await Promise.all([
      stage(hostname, 'LeaveRule', 'Annual'),
      stage(hostname, 'LeaveRule', [{ Name: 'ok' }, 7]),
      stage(hostname, 'LeaveRule', [{ Name: 'ok' }, { Id: -1 }]),
      stage(hostname, 'LeaveRule', undefined),
    ]);

    // Assess
    expect(replies.map((reply) => reply.status)).toEqual([400, 400, 400, 400]);
    expect(replies[1]?.body.error.message).toContain('[1]');
    expect(await install(hostname).query('LeaveRule')).toHaveLength(4);
  });

  it('answers 404 for an unknown install', async () => {
    // Act
    const reply = await stage('nope-1.us.sandbox.test', 'Employee', { FirstName: 'x' });

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('writes staged timestamps in local time with no lenient reading on', async () => {
    // Prepare
    await call('POST', '/_sandbox/mode', { strict: true });
    const hostname = await signup();

    // Act
    const reply = await stage(hostname, 'LeaveRule', { Name: 'Jury Duty' });

    // Assess
    expect(reply.body.Created).toMatch(/-0[45]:00$/);
  });
});
