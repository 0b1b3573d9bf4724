import {
  ConfigurationError,
  InvalidHostnameError,
  RegionNotAvailableError,
} from '#functions/domain/errors.ts';

/**
 * The only place that builds service URLs. The bearer token goes to nothing else, so an address
 * that did not come from the configured roots or the install template never receives it.
 */

export const regions = ['US', 'UK', 'AU'] as const;
export type Region = (typeof regions)[number];

export type ProvisioningOperation = 'signup' | 'change-plan' | 'subscription-status';

export interface AddressConfig {
  partnerName: string;
  /** Provisioning root per region. US must be configured; UK/AU only once the service runs them. */
  provisioningUrls: Partial<Record<Region, string>>;
  /** Install base URL with a `{hostname}` placeholder. @default 'https://{hostname}' */
  installUrlTemplate?: string;
  /** When set, only hostnames under one of these domains are accepted. */
  allowedHostnameSuffixes?: string[];
}

export interface Addresses {
  provisioningUrl(region: Region, operation: ProvisioningOperation): string;
  installBaseUrl(hostname: string): string;
  installUrl(hostname: string, path: string): string;
  /** Refuses a hostname that is not a plain DNS name under an allowed domain. */
  assertHostname(hostname: string): void;
}

export const DEFAULT_INSTALL_URL_TEMPLATE = 'https://{hostname}';

/** Install base URLs kept by one address book before it starts again. */
const MAX_REMEMBERED_INSTALLS = 1024;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function createAddresses(config: AddressConfig): Addresses {
  if (config.partnerName.trim() === '') throw new ConfigurationError('partnerName must not be empty');
  if (!config.provisioningUrls.US) {
    throw new ConfigurationError(
      'provisioningUrls.US must be configured (there is no built-in production URL)',
    );
  }
  const roots = new Map<Region, string>();
  for (const region of regions) {
    const root = config.provisioningUrls[region];
    if (root) roots.set(region, checkedRoot(root, `provisioningUrls.${region}`));
  }
  const template = config.installUrlTemplate ?? DEFAULT_INSTALL_URL_TEMPLATE;
  if (!template.includes('{hostname}')) {
    throw new ConfigurationError('installUrlTemplate must contain the {hostname} placeholder');
  }
  checkedRoot(template.replaceAll('{hostname}', 'example.test'), 'installUrlTemplate');
  const suffixes = (config.allowedHostnameSuffixes ?? []).map((suffix) =>
    suffix.replace(/^\./, '').toLowerCase(),
  );
  const partner = encodeURIComponent(config.partnerName);

  // Checked and built once per hostname: every service call builds its URL, and a function talks
  // to few installs. Only accepted hostnames are kept (a refused one throws each time). Bounded.
  const bases = new Map<string, string>();
  const installBaseUrl = (hostname: string): string => {
    const known = bases.get(hostname);
    if (known !== undefined) return known;
    assertPlainHostname(hostname, suffixes);
    const base = template.replaceAll('{hostname}', hostname).replace(/\/+$/, '');
    if (bases.size >= MAX_REMEMBERED_INSTALLS) bases.clear();
    bases.set(hostname, base);
    return base;
  };

  return {
    provisioningUrl(region, operation) {
      const root = roots.get(region);
      if (!root) throw new RegionNotAvailableError(region);
      return `${root}/connect/v1/partner/${partner}/${operation}`;
    },
    installBaseUrl,
    assertHostname: (hostname) => assertPlainHostname(hostname, suffixes),
    installUrl(hostname, path) {
      return `${installBaseUrl(hostname)}${path.startsWith('/') ? path : `/${path}`}`;
    },
  };
}

/**
 * A hostname comes from the service's signup answer via our own table, but it still ends up in a
 * URL that carries the token, so anything other than a plain DNS name (scheme, port, path,
 * userinfo, IP literal, upper case) is refused before a request is built.
 */
export function assertPlainHostname(hostname: string, allowedSuffixes: readonly string[] = []): void {
  const shown = JSON.stringify(hostname.length > 80 ? `${hostname.slice(0, 80)}...` : hostname);
  if (hostname.length === 0 || hostname.length > 253) {
    throw new InvalidHostnameError(`hostname ${shown} must be 1 to 253 characters long`);
  }
  const labels = hostname.split('.');
  if (labels.length < 2) throw new InvalidHostnameError(`hostname ${shown} must have at least two labels`);
  for (const label of labels) {
    if (!LABEL.test(label)) {
      throw new InvalidHostnameError(
        `hostname ${shown} is not a plain DNS name (labels of 1-63 lower-case letters, digits or inner hyphens)`,
      );
    }
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? '')) {
    throw new InvalidHostnameError(`hostname ${shown} looks like an IP address`);
  }
  if (allowedSuffixes.length > 0 && !allowedSuffixes.some((suffix) => hostname.endsWith(`.${suffix}`))) {
    throw new InvalidHostnameError(
      `hostname ${shown} is not under an allowed domain (${allowedSuffixes.join(', ')})`,
    );
  }
}

function checkedRoot(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError(`${name} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError(`${name} must use http or https`);
  }
  if (url.username || url.password) throw new ConfigurationError(`${name} must not carry credentials`);
  if (url.search || url.hash) throw new ConfigurationError(`${name} must not have a query or fragment`);
  return raw.replace(/\/+$/, '');
}
