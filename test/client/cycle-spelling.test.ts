import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceClient } from '#functions/service/client.ts';
import type { CycleSpelling } from '#functions/service/install.ts';
import type { AgreedHour } from '#functions/service/records/agreed-hours.ts';
import { type FakeService, replyJson, startFakeService } from './fake-service.ts';
import { fullAgreedHour, simpleAgreedHour } from './spec-records.ts';

/**
 * The spec spells cycles `TWO_WEEK`/`FOUR_WEEK` in the full agreed-hour form and
 * `TWO_WEEKLY`/`FOUR_WEEKLY` in the simple form. The client accepts either spelling from the caller
 * and sends the configured one. The sandbox insists on the per-form spelling, so what goes on the
 * wire under the other settings is read from a recording server.
 */

let service: FakeService;
beforeAll(async () => {
  service = await startFakeService((_request, response) => replyJson(response, 200, { success: true }));
});
afterAll(() => service.close());

async function sentCycle(spelling: CycleSpelling | undefined, agreedHour: AgreedHour): Promise<string> {
  const client = createServiceClient({
    partnerName: 'acme',
    provisioningUrls: { US: service.url },
    installUrlTemplate: `${service.url}/installs/{hostname}`,
    token: async () => 'cycle-token',
    ...(spelling === undefined ? {} : { install: { cycleSpelling: spelling } }),
  });
  await client.install('shop-1.us.example.test').setAgreedHours(2, agreedHour);
  const request = service.requests.at(-1);
  expect(request?.path).toBe('/installs/shop-1.us.example.test/api/management/v2/agreed_hour/2');
  return JSON.parse(request?.body ?? '{}').agreedHour.workPeriod.cycle;
}

const full = (cycle: string) =>
  ({ ...fullAgreedHour, workPeriod: { ...fullAgreedHour.workPeriod, cycle } }) as AgreedHour;
const simple = (cycle: string) =>
  ({ ...simpleAgreedHour, workPeriod: { ...simpleAgreedHour.workPeriod, cycle } }) as AgreedHour;

describe('agreed-hour cycle spelling', () => {
  it('sends each form its own spelling by default, whichever spelling the caller used', async () => {
    // Act
    const fullFromSimpleSpelling = await sentCycle(undefined, full('TWO_WEEKLY'));
    const simpleFromFullSpelling = await sentCycle(undefined, simple('FOUR_WEEK'));

    // Assess
    expect(fullFromSimpleSpelling).toBe('TWO_WEEK');
    expect(simpleFromFullSpelling).toBe('FOUR_WEEKLY');
  });

  it('sends the simple-form spelling for both forms when configured so', async () => {
    // Act
    const fullForm = await sentCycle('simple-form', full('TWO_WEEK'));
    const simpleForm = await sentCycle('simple-form', simple('FOUR_WEEK'));

    // Assess
    expect(fullForm).toBe('TWO_WEEKLY');
    expect(simpleForm).toBe('FOUR_WEEKLY');
  });

  it('sends the full-form spelling for both forms when configured so', async () => {
    // Act
    const fullForm = await sentCycle('full-form', full('FOUR_WEEKLY'));
    const simpleForm = await sentCycle('full-form', simple('TWO_WEEKLY'));

    // Assess
    expect(fullForm).toBe('FOUR_WEEK');
    expect(simpleForm).toBe('TWO_WEEK');
  });

  it('leaves WEEKLY alone, the one spelling both forms share', async () => {
    // Act
    const sent = await sentCycle('full-form', simple('WEEKLY'));

    // Assess
    expect(sent).toBe('WEEKLY');
  });
});
