import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox } from './harness.ts';

const { sandbox, call, signup, install } = await startTestSandbox();
afterAll(() => sandbox.close());
beforeEach(async () => {
  await call('POST', '/_sandbox/reset');
});

const status = (hostname: string) =>
  call('POST', '/connect/v1/partner/acme/subscription-status', { hostname });

describe('DELETE /_sandbox/businesses/{hostname}', () => {
  it('deletes the business and its install: subscription-status answers HOSTNAME_NOT_LINKED', async () => {
    // Prepare
    const gone = await signup();
    const kept = await signup();

    // Act
    const reply = await call('DELETE', `/_sandbox/businesses/${gone}`);

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body.deleted).toMatchObject({ hostname: gone, edition: 'SUBSCRIPTION_PRO_TRIAL' });
    const refused = await status(gone);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('HOSTNAME_NOT_LINKED');
    expect((await install(gone).call('POST', '/api/v1/resource/Country/QUERY', {})).status).toBe(404);
    expect((await call('GET', `/_sandbox/installs/${gone}`)).status).toBe(404);
    const listed = (await call('GET', '/_sandbox/businesses')).body as Array<{ hostname: string }>;
    expect(listed.map((business) => business.hostname)).toEqual([kept]);
    expect((await status(kept)).status).toBe(200);
  });

  it('answers the refusal with the code the notLinkedErrorCode knob names, and the default again once it is null', async () => {
    // Prepare: the spec names the condition ("not linked to the calling partner"), not the code.
    const gone = await signup();
    await call('DELETE', `/_sandbox/businesses/${gone}`);

    // Act
    const mode = await call('POST', '/_sandbox/mode', { notLinkedErrorCode: 'BUSINESS_UNKNOWN' });
    const configured = await status(gone);
    const upgrade = await call('POST', '/connect/v1/partner/acme/change-plan', {
      data: { hostname: gone, action: 'cancel' },
    });
    await call('POST', '/_sandbox/mode', { notLinkedErrorCode: null });
    const byDefault = await status(gone);

    // Assess
    expect(mode.body).toMatchObject({ notLinkedErrorCode: 'BUSINESS_UNKNOWN' });
    expect(configured.status).toBe(403);
    expect(configured.body.error.code).toBe('BUSINESS_UNKNOWN');
    expect(upgrade.body.error.code).toBe('BUSINESS_UNKNOWN');
    expect(byDefault.body.error.code).toBe('HOSTNAME_NOT_LINKED');
  });

  it('answers 404 for a business it does not hold', async () => {
    // Act
    const reply = await call('DELETE', '/_sandbox/businesses/nobody-1.us.sandbox.test');

    // Assess
    expect(reply.status).toBe(404);
  });
});

describe('POST /_sandbox/businesses/{hostname}/edition', () => {
  it('changes the edition at the service, as subscription-status then reports it', async () => {
    // Prepare
    const hostname = await signup();

    // Act
    const reply = await call('POST', `/_sandbox/businesses/${hostname}/edition`, {
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      hostname,
      previousEdition: 'SUBSCRIPTION_PRO_TRIAL',
      edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM',
    });
    expect((await status(hostname)).body.data.edition).toBe('SUBSCRIPTION_PAID_PRO_PREMIUM');
  });

  it('starts the free period when set to free: the spec reading deletes the business 30 days later', async () => {
    // Prepare
    await call('POST', '/_sandbox/mode', { strict: true });
    const hostname = await signup();

    // Act
    await call('POST', `/_sandbox/businesses/${hostname}/edition`, { edition: 'SUBSCRIPTION_FREE' });
    const freeNow = await status(hostname);
    await call('POST', '/_sandbox/clock', { advanceDays: 31 });
    const later = await status(hostname);

    // Assess
    expect(freeNow.body.data.edition).toBe('SUBSCRIPTION_FREE');
    expect(later.body.error.code).toBe('HOSTNAME_NOT_LINKED');
  });

  it('refuses an unknown edition, a lapsed trial and an unknown business', async () => {
    // Prepare
    const hostname = await signup();
    await call('POST', '/_sandbox/clock', { advanceDays: 31 });

    // Act
    const unknown = await call('POST', `/_sandbox/businesses/${hostname}/edition`, { edition: 'GOLD' });
    const trial = await call('POST', `/_sandbox/businesses/${hostname}/edition`, {
      edition: 'SUBSCRIPTION_PRO_TRIAL',
    });
    const missing = await call('POST', '/_sandbox/businesses/nobody-1.us.sandbox.test/edition', {
      edition: 'SUBSCRIPTION_FREE',
    });

    // Assess
    expect(unknown.status).toBe(400);
    expect(trial.status).toBe(400);
    expect(missing.status).toBe(404);
  });
});
