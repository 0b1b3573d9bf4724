import type {
  InboundDetailInput,
  InboundDetailType,
  OutboundDetail,
  OutboundDetailType,
} from './registry.ts';

/**
 * One coherent demo account, used for the files in `events/`, the local scenario and tests:
 * it is provisioned, converted, has employee 2 updated, a location with two areas, a week of
 * wage budget and two timesheets' pay returns read back.
 */
export const demoAccount = {
  accountId: 'acct-1001',
  hostname: 'harborcafe-1.us.sandbox.test',
  ownerEmail: 'owner@example.com',
  employeeId: 2,
  timesheetIds: [1001, 1002],
} as const;

const { accountId, hostname } = demoAccount;

export const inboundSamples: { readonly [K in InboundDetailType]: InboundDetailInput<K> } = {
  AccountCreated: {
    accountId,
    businessName: 'Harbor Cafe',
    owner: {
      firstName: 'Avery',
      lastName: 'Stone',
      email: demoAccount.ownerEmail,
      mobileNumber: '+1 415 555 0134',
    },
    estimatedEmployeeCount: 12,
    region: 'US',
  },
  PlanChosen: {
    accountId,
    plan: 'PREMIUM',
    billingAddress: {
      address1: '100 Embarcadero',
      suburb: 'San Francisco',
      state: 'CA',
      postcode: '94105',
      country: 'United States',
    },
  },
  SubscriptionStatusRequested: { accountId },
  EmployeeChanged: {
    accountId,
    employeeId: demoAccount.employeeId,
    customFields: { badgeNumber: 'B-17', forkliftCertified: true },
    regularHours: {
      threshold: 38,
      applyThreshold: false,
      workPeriod: {
        cycle: 'WEEKLY',
        dayOfWeek: 'MONDAY',
        startDate: '2025-03-03T00:00:00Z',
        startCycleDate: '2025-03-03T00:00:00Z',
        endCycleDate: '2025-03-10T00:00:00Z',
      },
      workingDaysPerCycle: 5,
      details: {
        weeks: [
          {
            week: 'ONE',
            days: [1, 2, 3, 4, 5].map((day) => ({
              day,
              shifts: [
                {
                  startTime: '08:00',
                  endTime: '16:00',
                  breaks: [
                    {
                      breakType: 'MEAL',
                      breakDuration: '00:30',
                      startBreakTime: '12:00',
                      endBreakTime: '12:30',
                    },
                  ],
                  totalHours: 38,
                },
              ],
            })),
          },
        ],
      },
    },
    payRate: { awardCode: 'RetailAssoc2024x', countryCode: 'us', hourlyRate: 24.5 },
    leaveBalances: [
      { leaveRuleId: 1, hours: 40, asOf: '2025-03-01T00:00:00Z' },
      { leaveRuleId: 2, hours: 16 },
    ],
  },
  LocationCreated: {
    accountId,
    locationRef: 'loc-waterfront',
    name: 'Harbor Cafe Waterfront',
    code: 'WF01',
    tradingName: 'Harbor Cafe',
    address: '100 Embarcadero, San Francisco, CA 94105',
    isWorkplace: true,
    isPayrollEntity: false,
    payrollExportCode: 'WF-PAY',
    areas: [
      { name: 'Kitchen', exportName: 'KITCHEN' },
      { name: 'Front of House', exportName: 'FOH', geographic: false },
    ],
  },
  BudgetSet: {
    accountId,
    // A seeded sandbox location, so the budget does not depend on LocationCreated having run.
    locationId: 1,
    kind: 'WAGE',
    timeZone: 'America/Los_Angeles',
    days: [
      { date: '2025-03-03', value: 1200 },
      { date: '2025-03-04', value: 1100 },
      { date: '2025-03-05', value: 1100 },
      { date: '2025-03-06', value: 1250 },
      { date: '2025-03-07', value: 1600 },
      { date: '2025-03-08', value: 1800 },
      { date: '2025-03-09', value: 900 },
    ],
    reference: 'week-2025-10',
  },
  PayReturnsRequested: { accountId, timesheetIds: [...demoAccount.timesheetIds] },
  // Employee 2 (its seeded agreement resolves through its contract, the pay rate set by
  // EmployeeChanged through a BaseRate) and employee 4 (contract only).
  PayRatesRequested: { accountId, employeeIds: [demoAccount.employeeId, 4] },
  ReferenceDataRequested: {
    accountId,
    kinds: ['COUNTRIES', 'STATES', 'LEAVE_RULES', 'AWARDS', 'AGREED_HOURS'],
    countryCode: 'US',
    employeeId: demoAccount.employeeId,
  },
  // The install's employees whose last name starts with "Le" (the seeded owner, Jordan Lee).
  RecordsRequested: {
    accountId,
    resource: 'Employee',
    where: [{ field: 'LastName', op: 'lk', value: 'Le%' }],
    pageSize: 50,
  },
  TimesheetFieldsDefined: {
    accountId,
    fields: [
      {
        apiName: 'supervisorApproved',
        name: 'Approved by the shift supervisor?',
        type: 4,
        validation: ['nempty'],
      },
      {
        apiName: 'overtimeReason',
        name: 'Reason for overtime',
        type: 5,
        valuelist: ['Customer demand', 'Cover for absence', 'Other'],
      },
    ],
  },
  // Employees 3, 4 and 5 on one award: a library assignment for 3, its agreement for 4 and 5.
  PayRateAssigned: {
    accountId,
    employeeIds: [3, 4, 5],
    awardCode: 'RetailAssoc2024x',
    countryCode: 'US',
    overrides: [{ hourlyRate: 18.25 }],
  },
};

const causationId = 'b7e3c0de-0000-4000-8000-000000000001';
const trialEndDate = '2025-04-02T09:00:00Z';

export const outboundSamples: { readonly [K in OutboundDetailType]: OutboundDetail<K> } = {
  BusinessProvisioned: {
    accountId,
    hostname,
    causationId,
    edition: 'SUBSCRIPTION_PRO_TRIAL',
    trialEndDate,
    region: 'US',
  },
  PlanChanged: {
    accountId,
    hostname,
    causationId,
    edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
  },
  TrialExpiring: { accountId, hostname, causationId: 'trial-watch-2025-03-26T09', daysLeft: 7, trialEndDate },
  TrialEnded: {
    accountId,
    hostname,
    causationId: 'trial-watch-2025-04-02T10',
    edition: 'SUBSCRIPTION_FREE',
    trialEndDate,
  },
  BusinessEditionChanged: {
    accountId,
    hostname,
    causationId: 'trial-watch-2025-04-20T10',
    previousEdition: 'SUBSCRIPTION_FREE',
    edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
  },
  BusinessGone: {
    accountId,
    hostname,
    causationId: 'trial-watch-2025-05-02T10',
    lastKnownEdition: 'SUBSCRIPTION_FREE',
    detectedAt: '2025-05-02T10:00:00Z',
    reason: 'HOSTNAME_NOT_LINKED',
  },
  EmployeeSynced: {
    accountId,
    hostname,
    causationId,
    employeeId: demoAccount.employeeId,
    parts: [
      { part: 'customFields', status: 'applied' },
      { part: 'regularHours', status: 'applied' },
      { part: 'payRate', status: 'applied' },
      { part: 'leaveBalances', status: 'applied' },
    ],
    slots: [
      { apiName: 'badgeNumber', slot: 3 },
      { apiName: 'forkliftCertified', slot: 4 },
    ],
    agreementId: 42,
  },
  LocationProvisioned: {
    accountId,
    hostname,
    causationId,
    locationRef: 'loc-waterfront',
    locationId: 3,
    created: true,
    areas: [
      { name: 'Kitchen', areaId: 3, created: true },
      { name: 'Front of House', areaId: 4, created: true },
    ],
  },
  BudgetSaved: {
    accountId,
    hostname,
    causationId,
    locationId: 1,
    count: 7,
    ids: ['m-101', 'm-102', 'm-103', 'm-104', 'm-105', 'm-106', 'm-107'],
  },
  PayReturnsReady: {
    accountId,
    hostname,
    causationId,
    timesheetId: 1001,
    lines: [
      {
        payReturnId: 5001,
        payRuleId: 11,
        payRuleTitle: 'Ordinary Hours',
        payrollCategory: 'ORD',
        value: 8,
        cost: 196,
        overridden: false,
        comment: '',
      },
      {
        payReturnId: 5002,
        payRuleId: 31,
        payRuleTitle: 'Schedule Change Premium',
        payrollCategory: 'PREDICT',
        value: 1,
        cost: 24.5,
        overridden: false,
        comment: '',
        premium: {
          eventIds: ['evt-8841', 'evt-8842'],
          eventTypes: ['TIME_ADDED', 'LOCATION_CHANGED'],
          config: { returnTimeType: 'PER_OCCURRENCE', changePeriodThresholdSeconds: 1209600 },
        },
      },
    ],
    totals: { value: 9, cost: 220.5 },
  },
  PayReturnsCompleted: {
    accountId,
    hostname,
    causationId,
    sourceEventId: causationId,
    from: '2026-01-12',
    to: '2026-01-18',
    timesheetIds: [1001, 1002, 1003, 1004],
    count: 4,
  },
  SubscriptionStatus: {
    accountId,
    hostname,
    causationId,
    edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    trialEndDate,
    conversionDate: '2025-03-05T09:00:00Z',
    status: 'ACTIVE',
  },
  PayRatesReported: {
    accountId,
    hostname,
    causationId,
    answerId: 'c0ffee00-0000-4000-8000-000000000014',
    region: 'US',
    baseRateApplies: true,
    rates: [
      {
        agreementId: 2,
        employeeId: demoAccount.employeeId,
        active: true,
        startDate: '2025-01-06',
        endDate: null,
        origin: 'CONTRACT',
        hourlyRate: 18.5,
        contractId: 1,
        payRuleId: 'pr_us_retail_base',
      },
      {
        agreementId: 42,
        employeeId: demoAccount.employeeId,
        active: true,
        startDate: '2025-03-03',
        endDate: null,
        origin: 'BASE_RATE',
        hourlyRate: 24.5,
      },
      {
        agreementId: 4,
        employeeId: 4,
        active: true,
        startDate: '2025-01-06',
        endDate: null,
        origin: 'UNRESOLVED',
        hourlyRate: null,
        reasonCode: 'NO_HOURLY_RATE',
        reason: 'pay rule pr_us_salaried of employment contract 3 has no HourlyRate',
        contractId: 3,
        payRuleId: 'pr_us_salaried',
      },
    ],
    employeesWithoutAgreements: [],
    part: 1,
    parts: 1,
  },
  TimesheetFieldsSynced: {
    accountId,
    hostname,
    causationId,
    created: [{ apiName: 'overtimeReason', definitionId: 2 }],
    existing: [{ apiName: 'supervisorApproved', definitionId: 1 }],
    refused: [],
    total: 2,
    limit: 128,
  },
  PayRatesAssigned: {
    accountId,
    hostname,
    causationId,
    awardCode: 'RetailAssoc2024x',
    agreementId: 7,
    employees: [
      { employeeId: 3, status: 'applied', via: 'library', agreementId: 7 },
      { employeeId: 4, status: 'applied', via: 'bulk', agreementId: 8 },
      { employeeId: 5, status: 'applied', via: 'bulk', agreementId: 9 },
    ],
    applied: 3,
    failed: 0,
  },
  ReferenceData: {
    accountId,
    hostname,
    causationId,
    answerId: 'c0ffee00-0000-4000-8000-000000000015',
    kinds: ['COUNTRIES', 'STATES', 'LEAVE_RULES', 'AWARDS', 'AGREED_HOURS'],
    countryCode: 'US',
    countries: [
      {
        id: 1,
        code: 'US',
        codeA3: 'USA',
        name: 'United States',
        region: 'North America',
        active: true,
        sortOrder: 1,
      },
    ],
    states: [
      { id: 1, countryId: 1, code: 'CA', name: 'California', active: true, sortOrder: 1 },
      { id: 2, countryId: 1, code: 'NY', name: 'New York', active: true, sortOrder: 2 },
    ],
    leaveRules: [
      { id: 1, name: 'Annual Leave', fields: { Name: 'Annual Leave', Unit: 'HOURS', PaidLeave: true } },
    ],
    awards: [
      {
        awardCode: 'RetailAssoc2024x',
        library: 'NEW',
        name: 'Retail Associate',
        award: 'US Retail Pay Rates 2024',
        countryCode: 'us',
      },
      {
        awardCode: 'MA000004',
        library: 'OLD',
        name: 'Retail Employee Level 1',
        award: 'General Retail Industry Award 2020',
        countryCode: 'au',
      },
    ],
    agreedHours: {
      employeeId: demoAccount.employeeId,
      agreedHour: {
        threshold: 38,
        applyThreshold: false,
        workPeriod: { cycle: 'WEEKLY', dayOfWeek: 'MONDAY' },
        details: { weeks: [] },
      },
    },
    asOf: { countries: '2025-03-03T09:08:00.000Z', states: '2025-03-03T09:08:00.000Z' },
    part: 1,
    parts: 1,
  },
  RecordsReported: {
    accountId,
    hostname,
    causationId,
    answerId: 'c0ffee00-0000-4000-8000-000000000016',
    resource: 'Employee',
    where: [{ field: 'LastName', op: 'lk', value: 'Le%' }],
    records: [
      {
        Id: 1,
        FirstName: 'Jordan',
        LastName: 'Lee',
        DisplayName: 'Jordan Lee',
        Company: 1,
        Active: true,
        StartDate: '2026-01-05',
        CustomFieldData: 1,
        _DPMetaData: { System: 'Employee' },
      },
    ],
    part: 1,
    parts: 1,
  },
  SyncFailed: {
    accountId,
    hostname,
    causationId,
    sourceEventId: causationId,
    detailType: 'EmployeeChanged',
    code: 'AWARD_NOT_FOUND',
    message: 'payRate.awardCode: no such award in the install library',
  },
  SyncSkipped: {
    accountId,
    hostname,
    causationId,
    sourceEventId: causationId,
    detailType: 'EmployeeChanged',
    code: 'SUPERSEDED',
    supersededBy: 'b7e3c0de-0000-4000-8000-000000000002',
    things: [
      {
        thing: 'customFields.badgeNumber',
        supersededBy: 'b7e3c0de-0000-4000-8000-000000000002',
        supersededByOccurredAt: '2025-03-03T09:05:00.000000000Z',
      },
    ],
    message:
      'EmployeeChanged b7e3c0de-0000-4000-8000-000000000001 (occurredAt 2025-03-03T09:03:00.000000000Z) changed nothing for customFields.badgeNumber: event b7e3c0de-0000-4000-8000-000000000002 (2025-03-03T09:05:00.000000000Z) was applied to it first',
  },
};
