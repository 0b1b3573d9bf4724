import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseShapeError } from '#functions/domain/errors.ts';
import { createServiceClient } from '#functions/service/client.ts';
import { type FakeService, replyJson, startFakeService } from './fake-service.ts';
import { joinedPayReturn } from './spec-records.ts';

/**
 * getPayReturns checks each answer's lines, then each distinct joined TimesheetObject once
 * (install.ts). A refusal must still name the field by its path in the whole answer: that text
 * reaches the partner in SyncFailed UNEXPECTED_RESPONSE.
 */

let answer: unknown[] = [];
let service: FakeService;
beforeAll(async () => {
  service = await startFakeService((_request, response) => replyJson(response, 200, answer));
});
afterAll(() => service.close());

const install = () =>
  createServiceClient({
    partnerName: 'acme',
    provisioningUrls: { US: service.url },
    installUrlTemplate: `${service.url}/installs/{hostname}`,
    token: async () => 'pay-returns-token',
  }).install('shop-1.us.example.test');

const line = (id: number, timesheet: Record<string, unknown>) => ({
  ...joinedPayReturn,
  Id: id,
  Timesheet: timesheet['Id'],
  TimesheetObject: timesheet,
});

async function refusal(): Promise<string> {
  const error = await install()
    .getPayReturns(joinedPayReturn.Timesheet)
    .then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
  expect(error).toBeInstanceOf(ResponseShapeError);
  return (error as Error).message;
}

describe('pay returns with a timesheet the service answered otherwise', () => {
  it('names the field by its line and join when the first line carries it', async () => {
    // Prepare
    const timesheet = { ...joinedPayReturn.TimesheetObject, Employee: 'not-an-id' };
    answer = [line(1, timesheet), line(2, timesheet)];

    // Act
    const message = await refusal();

    // Assess
    expect(message).toMatch(
      /^QUERY TimesheetPayReturn: unexpected response: \[0\]\.TimesheetObject\.Employee: /,
    );
  });

  it('names the later line that joins another, malformed timesheet', async () => {
    // Prepare
    const other = { ...joinedPayReturn.TimesheetObject, Id: 9_999, Employee: 'not-an-id' };
    answer = [line(1, joinedPayReturn.TimesheetObject), line(2, other)];

    // Act
    const message = await refusal();

    // Assess
    expect(message).toMatch(
      /^QUERY TimesheetPayReturn: unexpected response: \[1\]\.TimesheetObject\.Employee: /,
    );
  });
});
