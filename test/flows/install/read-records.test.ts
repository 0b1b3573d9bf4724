import { describe, expect, it } from 'vitest';
import { encodeCursor } from '#functions/contracts/records-cursor.ts';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import {
  type Delivery,
  deliver,
  deliverWithCalls,
  type InvalidDetailCase,
  itAnswersInvalidDetails,
  onlyPublished,
  provisionedInstall,
} from './install-support.ts';

/** Employees beside the seeded five (Lee, Patel, Chen, Diaz, Nguyen): last names around "Le". */
const STAGED_EMPLOYEES = [
  { Id: 21, FirstName: 'Ana', LastName: 'Leone', Active: true },
  { Id: 22, FirstName: 'Ben', LastName: 'Lemaire', Active: true },
  { Id: 23, FirstName: 'Cy', LastName: 'Ole', Active: true },
  { Id: 24, FirstName: 'Ana', LastName: 'Lee', Active: false },
  { Id: 25, FirstName: 'Dee', LastName: 'Kale', Active: true },
];

const flow = useFlowHarness();

async function installWithEmployees(label: string) {
  const install = await provisionedInstall(flow, label);
  await flow.sandbox('POST', `/_sandbox/installs/${install.hostname}/records/Employee`, STAGED_EMPLOYEES);
  return install;
}

const idsOf = (delivery: Delivery) =>
  delivery.published.flatMap((event) =>
    (event.detail['records'] as Array<Record<string, unknown>>).map((record) => record['Id']),
  );

describe('RecordsRequested', () => {
  it('pages the employees matching an lk on their last name, exactly, by the cursor, one QUERY of one condition per page', async () => {
    // Prepare
    const { accountId, hostname } = await installWithEmployees('records-pages');
    const where = [{ field: 'LastName', op: 'lk', value: 'Le%' }];

    // Act
    const pages: Delivery[] = [];
    const calls: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await deliverWithCalls(flow, hostname, 'read-records', 'RecordsRequested', {
        accountId,
        resource: 'Employee',
        where,
        pageSize: 2,
        ...(cursor ? { cursor } : {}),
      });
      pages.push(page.delivery);
      calls.push(...page.calls);
      cursor = onlyPublished(page.delivery, 'RecordsReported')['nextCursor'] as string | undefined;
    } while (cursor !== undefined && pages.length < 5);

    // Assess: Lee (1), Leone (21), Lemaire (22), Lee (24); never Ole or Kale, which a "contains"
    // reading of lk answers too.
    expect(pages.map(idsOf)).toEqual([
      [1, 21],
      [22, 24],
    ]);
    expect(calls).toEqual(Array(2).fill('POST /api/v1/resource/Employee/QUERY'));
    expect(onlyPublished(pages[1]!, 'RecordsReported')).toMatchObject({
      resource: 'Employee',
      where,
      hostname,
      part: 1,
      parts: 1,
    });
    expect(onlyPublished(pages[1]!, 'RecordsReported')).not.toHaveProperty('nextCursor');
  });

  it('holds every condition (AND) whatever the service does with several', async () => {
    // Prepare
    const { accountId } = await installWithEmployees('records-and');

    // Act
    const delivery = await deliver(flow, 'read-records', 'RecordsRequested', {
      accountId,
      resource: 'Employee',
      where: [
        { field: 'LastName', op: 'lk', value: '%le%' },
        { field: 'FirstName', op: 'eq', value: 'Ana' },
        { field: 'Active', op: 'eq', value: true },
      ],
    });

    // Assess
    expect(idsOf(delivery)).toEqual([21]);
  });

  it('reads every record of a resource without where, in id order', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'records-all');

    // Act
    const delivery = await deliver(flow, 'read-records', 'RecordsRequested', {
      accountId,
      resource: 'OperationalUnit',
    });

    // Assess
    expect(onlyPublished(delivery, 'RecordsReported')['records']).toEqual([
      expect.objectContaining({ Id: 1, Company: 1 }),
      expect.objectContaining({ Id: 2, Company: 2 }),
    ]);
  });

  it('refuses a resource the deployment does not read, naming those it does, calling nothing', async () => {
    // Prepare
    const { accountId, hostname } = await provisionedInstall(flow, 'records-unknown');

    // Act
    const { delivery, calls } = await deliverWithCalls(flow, hostname, 'read-records', 'RecordsRequested', {
      accountId,
      resource: 'LeaveAccrual',
    });

    // Assess
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'UNKNOWN_RESOURCE',
      message: expect.stringContaining(
        'Timesheet, Employee, Company, OperationalUnit, EmployeeAgreement, PayRule',
      ),
    });
    expect(calls).toEqual([]);
  });

  const otherQueryCursor = encodeCursor(
    { resource: 'Employee', where: [{ field: 'Id', op: 'eq', value: 1 }] },
    1,
  );
  const invalid: InvalidDetailCase[] = [
    ['a cursor of another where', { cursor: otherQueryCursor }, 'belongs to another resource or where'],
    ['a cursor that is not one', { cursor: 'bm90IGEgY3Vyc29y' }, 'detail.cursor'],
    [
      'an operator the service has not',
      { where: [{ field: 'Id', op: 'gt', value: 1 }] },
      'detail.where[0].op',
    ],
    ['no resource', { resource: undefined }, 'detail.resource'],
  ];
  itAnswersInvalidDetails(
    flow,
    {
      functionName: 'read-records',
      detailType: 'RecordsRequested',
      accountLabel: 'records-invalid',
      detail: (accountId, overrides) => ({ accountId, resource: 'Employee', ...overrides }),
    },
    invalid,
  );
});
