import { REGIONS, type Region } from '#functions/contracts/fields.ts';
import {
  ConfigurationError,
  InvalidHostnameError,
  RegionNotAvailableError,
} from '#functions/domain/errors.ts';

/**
 * The only place that builds service URLs. The bearer token goes to nothing else, so an address
 * that did not come from the configured roots or the install template never receives it.
 */

export type { Region };

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

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export function createAddresses(config: AddressConfig): Addresses {
  if (config.partnerName.trim() === '') throw new ConfigurationError('partnerName must not be empty');
  if (!config.provisioningUrls.US) {
    throw new ConfigurationError(
      'provisioningUrls.US must be configured (there is no built-in production URL)',
    );
  }
  const roots = new Map<Region, string>();
  for (const region of REGIONS) {
    const root = config.provisioningUrls[region];
    if (!root) continue;
    const problem = serviceRootProblem(root);
    if (problem !== undefined) throw new ConfigurationError(`provisioningUrls.${region} ${problem}`);
    roots.set(region, root.replace(/\/+$/, ''));
  }
  const template = config.installUrlTemplate ?? DEFAULT_INSTALL_URL_TEMPLATE;
  const templateProblem = installTemplateProblem(template);
  if (templateProblem !== undefined) throw new ConfigurationError(`installUrlTemplate ${templateProblem}`);
  const suffixes = (config.allowedHostnameSuffixes ?? []).map((suffix) =>
    suffix.replace(/^\./, '').toLowerCase(),
  );
  const partner = encodeURIComponent(config.partnerName);

  const installBaseUrl = (hostname: string): string => {
    assertPlainHostname(hostname, suffixes);
    return template.replaceAll('{hostname}', hostname).replace(/\/+$/, '');
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

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Where the service's addresses come from: a deployment, or a run on this machine (the sandbox). */
export interface ServiceAddressRules {
  /** Plain HTTP to 127.0.0.1/localhost (the sandbox). @default true: the functions' own check */
  readonly loopbackHttp?: boolean;
}

/**
 * What is wrong with `raw` as a root the token may be sent to, or undefined when nothing is: the
 * token travels on every call, so plain HTTP is allowed only to the sandbox on this machine, and
 * only where `rules` allow it (a deployment's configuration never does). The one rule for every
 * service address: read from the environment (runtime/config.ts), given to `createAddresses`, or
 * written in the deployment's configuration (lib/config.ts).
 */
export function serviceRootProblem(raw: string, rules: ServiceAddressRules = {}): string | undefined {
  const loopbackHttp = rules.loopbackHttp ?? true;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
  if (url.protocol === 'https:') return undefined;
  if (loopbackHttp && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return loopbackHttp ? 'must be an https URL (http only for 127.0.0.1/localhost)' : 'must be an https URL';
}

/** What is wrong with an install URL template, or undefined when nothing is. */
export function installTemplateProblem(
  template: string,
  rules: ServiceAddressRules = {},
): string | undefined {
  if (!template.includes('{hostname}')) return 'must contain {hostname}';
  const problem = serviceRootProblem(template.replaceAll('{hostname}', 'install.example'), rules);
  return problem === undefined ? undefined : `${problem} once {hostname} is filled in`;
}
