import { afterEach, describe, expect, it } from 'vitest';
import { isRetryable, ResponseShapeError, ServiceRejectedError } from '#functions/domain/errors.ts';
import { createServiceClient } from '#functions/service/client.ts';
import { type FakeHandler, type FakeService, replyJson, startFakeService } from './fake-service.ts';

/**
 * The provisioning envelope `{success, data, error}` as the client checks it, against answers the
 * sandbox never gives: a refusal inside HTTP 200, a body that is not the envelope, and a success
 * whose data lacks a field the spec lists.
 */

let service: FakeService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function clientAnswering(handler: FakeHandler) {
  service = await startFakeService(handler);
  return createServiceClient({
    partnerName: 'acme',
    provisioningUrls: { US: service.url },
    token: async () => 'envelope-token',
    sleep: async () => undefined,
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('provisioning envelope', () => {
  it('turns success:false inside HTTP 200 into a permanent typed error with the service code and message', async () => {
    // Prepare
    const client = await clientAnswering((_request, response) =>
      replyJson(response, 200, {
        success: false,
        data: null,
        error: { code: 'HOSTNAME_NOT_LINKED', message: 'hostname is not linked to partner acme' },
      }),
    );

    // Act
    const error = await rejection(client.provisioning.subscriptionStatus('shop-1.us.example.test'));

    // Assess
    expect(error).toBeInstanceOf(ServiceRejectedError);
    expect(error).toMatchObject({
      serviceCode: 'HOSTNAME_NOT_LINKED',
      message: 'hostname is not linked to partner acme',
      code: 'SERVICE_REJECTED',
    });
    expect(isRetryable(error)).toBe(false);
    expect(service?.requests).toHaveLength(1);
  });

  it('refuses a 2xx answer that is not the envelope', async () => {
    // Prepare
    const client = await clientAnswering((_request, response) =>
      replyJson(response, 200, { hostname: 'shop-1.us.example.test', edition: 'SUBSCRIPTION_FREE' }),
    );

    // Act
    const error = await rejection(client.provisioning.subscriptionStatus('shop-1.us.example.test'));

    // Assess
    expect(error).toBeInstanceOf(ResponseShapeError);
    expect((error as Error).message).toContain('not the provisioning envelope');
  });

  it('refuses a successful signup answer missing a listed field and names it', async () => {
    // Prepare
    const client = await clientAnswering((_request, response) =>
      replyJson(response, 200, {
        success: true,
        data: {
          portfolioName: 'Shop',
          status: 'ACTIVE',
          edition: 'SUBSCRIPTION_PRO_TRIAL',
          trialEndDate: '2026-12-01T00:00:00+00:00',
          conversionDate: '',
          externalId: 'acct-1',
        },
        error: null,
      }),
    );

    // Act
    const error = await rejection(
      client.provisioning.signup({
        userData: { firstName: 'Ana', lastName: 'Ng', email: 'ana@example.test' },
        businessData: { externalId: 'acct-1', portfolioName: 'Shop' },
      }),
    );

    // Assess
    expect(error).toBeInstanceOf(ResponseShapeError);
    expect((error as Error).message).toMatch(/\bhostname\b/);
  });
});
