import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  InvalidHostnameError,
  RegionNotAvailableError,
} from '#functions/domain/errors.ts';
import { assertPlainHostname, createAddresses } from '#functions/service/addresses.ts';
import { createServiceClient } from '#functions/service/client.ts';
import { type FakeService, replyJson, startFakeService } from './fake-service.ts';

const usOnly = { partnerName: 'acme', provisioningUrls: { US: 'https://prov.example.com/' } };

describe('provisioning addresses', () => {
  it('builds the provisioning URL of a configured region under the partner name', () => {
    const addresses = createAddresses({
      partnerName: 'acme co',
      provisioningUrls: { US: 'https://prov.example.com/', UK: 'https://uk.example.com/base' },
    });

    expect(addresses.provisioningUrl('US', 'signup')).toBe(
      'https://prov.example.com/connect/v1/partner/acme%20co/signup',
    );
    expect(addresses.provisioningUrl('UK', 'change-plan')).toBe(
      'https://uk.example.com/base/connect/v1/partner/acme%20co/change-plan',
    );
  });

  it('refuses a region without a root with a clear RegionNotAvailableError', () => {
    const addresses = createAddresses(usOnly);

    expect(() => addresses.provisioningUrl('UK', 'signup')).toThrow(RegionNotAvailableError);
    expect(() => addresses.provisioningUrl('AU', 'signup')).toThrow(
      'region AU is not available: no provisioning URL configured',
    );
  });

  it('requires the US root in the configuration (no built-in production URL)', () => {
    expect(() =>
      createAddresses({ partnerName: 'acme', provisioningUrls: { UK: 'https://uk.example.com' } }),
    ).toThrow(ConfigurationError);
  });

  it.each([
    ['a relative root', { US: '/connect' }],
    ['a root with credentials', { US: 'https://user:pw@prov.example.com' }],
    ['a non-http root', { US: 'ftp://prov.example.com' }],
    ['a root with a query', { US: 'https://prov.example.com/?a=1' }],
  ])('refuses %s', (_name, provisioningUrls) => {
    expect(() => createAddresses({ partnerName: 'acme', provisioningUrls })).toThrow(ConfigurationError);
  });
});

describe('install addresses', () => {
  it('uses https://{hostname} by default', () => {
    const addresses = createAddresses(usOnly);

    expect(addresses.installUrl('shop-1.us.example.com', '/api/v2/metrics')).toBe(
      'https://shop-1.us.example.com/api/v2/metrics',
    );
  });

  it('fills a configured template such as the sandbox one', () => {
    const addresses = createAddresses({
      ...usOnly,
      installUrlTemplate: 'http://127.0.0.1:9/installs/{hostname}',
    });

    expect(addresses.installBaseUrl('shop-1.us.sandbox.test')).toBe(
      'http://127.0.0.1:9/installs/shop-1.us.sandbox.test',
    );
  });

  it('refuses a template without the placeholder', () => {
    expect(() => createAddresses({ ...usOnly, installUrlTemplate: 'https://fixed.example.com' })).toThrow(
      'installUrlTemplate must contain {hostname}',
    );
  });

  it('refuses hostnames outside the allowed domains', () => {
    const addresses = createAddresses({ ...usOnly, allowedHostnameSuffixes: ['.example.com'] });

    expect(addresses.installBaseUrl('shop.example.com')).toBe('https://shop.example.com');
    expect(() => addresses.installBaseUrl('shop.example.org')).toThrow(InvalidHostnameError);
    expect(() => addresses.installBaseUrl('evilexample.com')).toThrow(InvalidHostnameError);
  });

  it('refuses a bad hostname every time it is asked, and answers a good one alike every time', () => {
    // Prepare
    const addresses = createAddresses({ ...usOnly, allowedHostnameSuffixes: ['example.com'] });
    const asked = () => [
      addresses.installUrl('shop.example.com', '/api/v2/resource/Employee'),
      addresses.installBaseUrl('shop.example.com'),
    ];

    // Act
    const first = asked();
    const again = asked();

    // Assess
    expect(again).toEqual(first);
    expect(first).toEqual(['https://shop.example.com/api/v2/resource/Employee', 'https://shop.example.com']);
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(() => addresses.installUrl('shop.example.org', '/api')).toThrow(
        'hostname "shop.example.org" is not under an allowed domain (example.com)',
      );
    }
  });
});

describe('hostname validation', () => {
  it.each(['shop-1.us.sandbox.test', 'a.b', `${'a'.repeat(63)}.example.com`, 'x1.y2.z3'])(
    'accepts the plain DNS name %s',
    (hostname) => {
      expect(() => assertPlainHostname(hostname)).not.toThrow();
    },
  );

  it.each([
    ['a scheme', 'https://shop.example.com'],
    ['a port', 'shop.example.com:8443'],
    ['a path', 'shop.example.com/admin'],
    ['userinfo', 'user@shop.example.com'],
    ['an IPv4 literal', '169.254.169.254'],
    ['an IPv6 literal', '[::1]'],
    ['upper case', 'Shop.example.com'],
    ['a single label', 'localhost'],
    ['an empty label', 'shop..example.com'],
    ['a trailing dot', 'shop.example.com.'],
    ['a leading hyphen', '-shop.example.com'],
    ['a trailing hyphen', 'shop-.example.com'],
    ['an underscore', 'shop_1.example.com'],
    ['a 64-character label', `${'a'.repeat(64)}.example.com`],
    ['more than 253 characters', `${'a'.repeat(60)}.`.repeat(5) + 'com'],
    ['whitespace', 'shop.example.com\n'],
    ['the empty string', ''],
    ['a query', 'shop.example.com?x=1'],
  ])('refuses %s', (_name, hostname) => {
    expect(() => assertPlainHostname(hostname)).toThrow(InvalidHostnameError);
  });

  it('accepts any hostname made of valid labels (property)', () => {
    const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/);
    const tld = fc.stringMatching(/^[a-z]{2,6}$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), tld, (labels, top) => {
        assertPlainHostname([...labels, top].join('.'));
      }),
    );
  });

  it('refuses any hostname containing a character outside letters, digits, dots and hyphens (property)', () => {
    const bad = fc.constantFrom('/', ':', '@', '?', '#', ' ', '%', '\\', 'A', '_', '[');
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{1,10}$/),
        bad,
        fc.stringMatching(/^[a-z]{1,10}$/),
        (left, char, right) => {
          expect(() => assertPlainHostname(`${left}${char}${right}.example.com`)).toThrow(
            InvalidHostnameError,
          );
        },
      ),
    );
  });
});

describe('refusals happen before any request', () => {
  let service: FakeService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  it('sends nothing for an unconfigured region or a bad hostname', async () => {
    // Prepare
    service = await startFakeService((_request, response) => replyJson(response, 200, {}));
    const client = createServiceClient({
      partnerName: 'acme',
      provisioningUrls: { US: service.url },
      installUrlTemplate: `${service.url}/installs/{hostname}`,
      token: async () => 't',
    });

    // Act
    const regionError = await client.provisioning
      .signup({
        region: 'UK',
        userData: { firstName: 'A', lastName: 'B', email: 'a@b.test' },
        businessData: { externalId: 'x', portfolioName: 'P' },
      })
      .catch((error: unknown) => error);
    const statusError = await client.provisioning
      .subscriptionStatus('127.0.0.1')
      .catch((error: unknown) => error);

    // Assess
    expect(regionError).toBeInstanceOf(RegionNotAvailableError);
    expect(regionError).toMatchObject({ code: 'REGION_NOT_AVAILABLE' });
    expect(statusError).toBeInstanceOf(InvalidHostnameError);
    expect(() => client.install('evil.example.com/../../x')).toThrow(InvalidHostnameError);
    expect(service.requests).toHaveLength(0);
  });
});
