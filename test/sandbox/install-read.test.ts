import { afterAll, describe, expect, it } from 'vitest';
import { LENIENT_READING_NAMES } from '#sandbox/mode.ts';
import { startTestSandbox } from './harness.ts';

// Written for the sandbox's lenient readings (all on); what the spec reading does instead is
// tested in spec-readings.test.ts.
const { sandbox, signup, install } = await startTestSandbox({ lenient: LENIENT_READING_NAMES });
const hostname = await signup();
const other = await signup();
const api = install(hostname);
afterAll(() => sandbox.close());

const creatorInfoKeys = [
  'CustomPronouns',
  'DisplayName',
  'Employee',
  'EmployeeProfile',
  'Id',
  'Photo',
  'Pronouns',
];

describe('install API access', () => {
  it('answers 401 without the bearer token, in the install error envelope', async () => {
    // Act
    const reply = await api.call('POST', '/api/v1/resource/Country/QUERY', {}, { token: null });

    // Assess
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({
      success: false,
      error: { code: 'UNAUTHORIZED', message: expect.any(String) },
    });
  });

  it('answers 404 NOT_FOUND for an unknown hostname', async () => {
    // Act
    const reply = await install('ghost-99.us.sandbox.test').call('POST', '/api/v1/resource/Country/QUERY');

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('answers 404 for an unknown resource', async () => {
    // Act
    const reply = await api.call('POST', '/api/v1/resource/Spaceship/QUERY', {});

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('seeds every install with the same records and ids', async () => {
    // Act
    const mine = await api.dump();
    const theirs = await install(other).dump();

    // Assess
    expect(theirs).toEqual(mine);
    expect(mine.Employee.map((employee: { Id: number }) => employee.Id)).toEqual([1, 2, 3, 4, 5]);
    expect(mine.Timesheet.map((timesheet: { Id: number }) => timesheet.Id)).toEqual([1001, 1002, 1003, 1004]);
    expect(mine.Location.map((location: { Id: number }) => location.Id)).toEqual([1, 2]);
    expect(mine.Area.map((area: { Company: number }) => area.Company)).toEqual([1, 2]);
  });
});

describe('QUERY', () => {
  it('returns every record for an empty body', async () => {
    // Act
    const records = await api.query('CustomFieldData');

    // Assess
    expect(records.map((record) => record.Id)).toEqual([1, 2]);
    expect(records[0]).toMatchObject({ System: 'Employee', F01: 'BADGE-0001', F02: true, F03: null });
  });

  it('finds a country by name with lk and by code with eq', async () => {
    // Act
    const byName = await api.query('Country', {
      search: { s1: { field: 'Country', type: 'lk', data: 'united states' } },
    });
    const byCode = await api.query('Country', { search: { s1: { field: 'Code', type: 'eq', data: 'AU' } } });
    const byWrongCase = await api.query('Country', {
      search: { s1: { field: 'Code', type: 'eq', data: 'au' } },
    });

    // Assess
    expect(byName).toHaveLength(1);
    expect(byName[0]).toMatchObject({ Code: 'US', CodeA3: 'USA', Active: true });
    expect(byCode.map((country) => country.Country)).toEqual(['Australia']);
    expect(byWrongCase).toEqual([]);
  });

  it('matches lk wildcards at the start and end, across countries', async () => {
    // Act
    const startsWithNew = await api.query('State', {
      search: { s1: { field: 'State', type: 'lk', data: 'new%' } },
    });
    const endsWithLand = await api.query('State', {
      search: { s1: { field: 'State', type: 'lk', data: '%land' } },
    });
    const containsSouth = await api.query('State', {
      search: { s1: { field: 'State', type: 'lk', data: '%SOUTH%' } },
    });

    // Assess
    expect(startsWithNew.map((state) => state.Code).sort()).toEqual(['NJ', 'NM', 'NSW', 'NY']);
    expect(new Set(startsWithNew.map((state) => state.Country))).toEqual(new Set([1, 2]));
    expect(endsWithLand.map((state) => state.State).sort()).toEqual([
      'Auckland',
      'England',
      'Northern Ireland',
      'Queensland',
      'Scotland',
    ]);
    expect(containsSouth.map((state) => state.Code)).toEqual(['NSW']);
  });

  it('seeds states with two-letter US codes and three-letter Australian codes', async () => {
    // Act
    const us = await api.query('State', { search: { s1: { field: 'Country', type: 'eq', data: 1 } } });
    const au = await api.query('State', { search: { s1: { field: 'Country', type: 'eq', data: 2 } } });

    // Assess
    expect(us.length).toBeGreaterThanOrEqual(3);
    expect(us.every((state) => state.Code.length === 2)).toBe(true);
    expect(au.length).toBeGreaterThanOrEqual(3);
    expect(au.every((state) => state.Code.length === 3)).toBe(true);
  });

  it('ANDs several conditions', async () => {
    // Act
    const records = await api.query('State', {
      search: {
        s1: { field: 'State', type: 'lk', data: 'new%' },
        s2: { field: 'Country', type: 'eq', data: 2 },
      },
    });

    // Assess
    expect(records.map((state) => state.Code)).toEqual(['NSW']);
  });

  it('refuses an unknown operator with a validation error', async () => {
    // Act
    const reply = await api.call('POST', '/api/v1/resource/State/QUERY', {
      search: { s1: { field: 'State', type: 'gt', data: 'a' } },
    });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'search.s1.type must be lk or eq',
    });
  });

  it('joins the timesheet and pay rule onto every pay return line of a timesheet', async () => {
    // Act
    const lines = await api.query('TimesheetPayReturn', {
      search: { s1: { field: 'Timesheet', type: 'eq', data: 1003 } },
      join: ['TimesheetObject', 'PayRuleObject'],
    });

    // Assess
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.TimesheetObject.Id).toBe(1003);
      expect(line.PayRuleObject.Id).toBe(line.PayRule);
      expect(typeof line.PayRuleObject.PayrollCategory).toBe('string');
    }
    const ordinary = lines.find((line) => line.EventIds === null);
    const premiums = lines.filter((line) => line.EventIds !== null);
    expect(ordinary?.PayRuleObject.PayrollCategory).toBe('REG-HOSP');
    expect(premiums).toHaveLength(2);
    const changed = premiums.find((line) => line.PayRule === 'pr_us_predict_changed');
    expect(JSON.parse(changed.EventIds)).toEqual(['evt-1003-moved-1', 'evt-1003-shortened-2']);
    const config = JSON.parse(changed.PayRuleObject.Config);
    expect(config.eventTypes).toEqual(['TIME_CHANGED_TOTAL_CHANGED', 'TIME_CHANGED_TOTAL_SAME']);
    expect(config.changePeriodThresholdSeconds).toBe(1_209_600);
    const added = premiums.find((line) => line.PayRule === 'pr_us_predict_added');
    expect(JSON.parse(added.PayRuleObject.Config)).toMatchObject({
      eventTypes: ['TIME_ADDED', 'LOCATION_CHANGED'],
      returnTimeType: 'PER_OCCURRENCE',
    });
  });

  it('leaves joined objects off when no join is asked for', async () => {
    // Act
    const lines = await api.query('TimesheetPayReturn', {
      search: { s1: { field: 'Timesheet', type: 'eq', data: '1001' } },
    });

    // Assess
    expect(lines).toHaveLength(2);
    expect(lines[0]).not.toHaveProperty('TimesheetObject');
    expect(lines[0]).not.toHaveProperty('PayRuleObject');
  });

  it('refuses a join the resource does not have', async () => {
    // Act
    const reply = await api.call('POST', '/api/v1/resource/Country/QUERY', { join: ['TimesheetObject'] });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('serves timesheets with slots, metadata JSON and the timesheet-only _DPMetaData parts', async () => {
    // Act
    const [timesheet] = await api.query('Timesheet', {
      search: { s1: { field: 'Id', type: 'eq', data: 1003 } },
    });

    // Assess
    expect(timesheet.Slots[0]).toEqual(
      expect.objectContaining({
        blnEmptySlot: false,
        strType: 'SHIFT',
        intUnixStart: timesheet.StartTime,
        mixedActivity: expect.objectContaining({ intState: 1, strBreakType: '' }),
      }),
    );
    expect(JSON.parse(timesheet.Metadata)).toEqual({
      borrowed_or_lent: { type: 'borrowed', fromCompany: 1, fromArea: 1 },
      forecast_cost: 168,
    });
    expect(timesheet._DPMetaData.System).toBe('Timesheet');
    expect(timesheet._DPMetaData.OperationalUnitInfo).toEqual({
      Id: 2,
      OperationalUnitName: 'Dispatch',
      Company: 2,
      CompanyName: 'Harbour Warehouse',
      LabelWithCompany: '[Harbour Warehouse] Dispatch',
    });
    expect(Object.keys(timesheet._DPMetaData.EmployeeInfo).sort()).toEqual(creatorInfoKeys);
    expect(timesheet._DPMetaData.EmployeeInfo.Id).toBe(3);
  });

  it('puts _DPMetaData with the resource name and creator info on every record of every resource', async () => {
    // Prepare
    const resources = [
      'Country',
      'State',
      'CustomFieldData',
      'EmployeeAgreement',
      'TimesheetPayReturn',
      'LeaveRule',
      'Employee',
      'EmploymentContract',
      'PayRule',
      'LeaveAccrual',
      'Timesheet',
    ];

    // Act
    const results = await Promise.all(resources.map((resource) => api.query(resource)));

    // Assess
    results.forEach((records, index) => {
      expect(records.length).toBeGreaterThan(0);
      for (const record of records) {
        expect(record._DPMetaData.System).toBe(resources[index]);
        expect(Object.keys(record._DPMetaData.CreatorInfo).sort()).toEqual(creatorInfoKeys);
      }
    });
  });

  it('seeds agreements with and without BaseRate whose contracts resolve to a pay rule rate', async () => {
    // Act
    const agreements = await api.query('EmployeeAgreement');
    const contracts = await api.query('EmploymentContract');
    const payRules = await api.query('PayRule');

    // Assess
    const withoutRate = agreements.filter((agreement) => agreement.BaseRate === null);
    expect(withoutRate.length).toBeGreaterThan(0);
    expect(agreements.some((agreement) => typeof agreement.BaseRate === 'number')).toBe(true);
    for (const agreement of withoutRate) {
      const contract = contracts.find((candidate) => candidate.Id === agreement.Contract);
      const payRule = payRules.find((candidate) => candidate.Id === contract.BasePayRule);
      expect(payRule.HourlyRate).toBeGreaterThan(0);
    }
    expect(JSON.parse(payRules[0].Config)).toHaveProperty('timesheetPayReturnOrdinaryTimeTotal');
  });

  it('seeds employee 1 with custom field data using F01 and F02 and the others with none', async () => {
    // Act
    const employees = await api.query('Employee');

    // Assess
    expect(employees.map((employee) => employee.CustomFieldData)).toEqual([1, null, null, null, null]);
  });
});

describe('award library', () => {
  it('lists old-format and new-format award codes in a success envelope', async () => {
    // Act
    const reply = await api.call('GET', '/api/v1/payroll/listAwardsLibrary');

    // Assess
    expect(reply.body.success).toBe(true);
    const codes: string[] = reply.body.data.map((entry: { AwardCode: string }) => entry.AwardCode);
    expect(codes).toContain('MA000004');
    expect(codes).toContain('RetailAssoc2024x');
    expect(new Set(reply.body.data.map((entry: { CountryCode: string }) => entry.CountryCode))).toEqual(
      new Set(['us', 'au']),
    );
  });

  it('returns one entry by code with its base pay rule', async () => {
    // Act
    const reply = await api.call('GET', '/api/v1/payroll/listAwardsLibrary/RetailAssoc2024x');

    // Assess
    expect(reply.body.data).toMatchObject({
      AwardCode: 'RetailAssoc2024x',
      CountryCode: 'us',
      BasePayRule: 'lib_RetailAssoc2024x_base',
      BasePayRuleObject: { Id: 'lib_RetailAssoc2024x_base', HourlyRate: 17 },
      Id: null,
    });
    expect(reply.body.data.SvcEmploymentContract).toBeTypeOf('object');
  });

  it('answers 404 for an unknown award code', async () => {
    // Act
    const reply = await api.call('GET', '/api/v1/payroll/listAwardsLibrary/retailassoc2024x');

    // Assess
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });
});
