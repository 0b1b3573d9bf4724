import { isRecord, readServiceError } from '#functions/service/http.ts';
import type { ReadAnswer } from './read-only-http.ts';

/** How the preflight reads one answer, as the functions would (docs/internals.md, "How HTTP statuses are read"). */

export type CheckStatus = 'ok' | 'failed' | 'confirmed' | 'contradicted' | 'not observable';

export interface CheckLine {
  /** What was checked: a root, the token, or an assumption's name. */
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

export const line = (name: string, status: CheckStatus, detail: string): CheckLine => ({
  name,
  status,
  detail,
});

export function describeAnswer(answer: ReadAnswer): string {
  if (answer.status === 0) return `no answer (${answer.failure ?? 'unknown reason'})`;
  const { serviceCode, serviceMessage } = readServiceError(answer.body);
  const said = [serviceCode, serviceMessage].filter(Boolean).join(': ');
  return `${answer.status}${said ? ` ${said}` : ''}`;
}

/** 401, or 403 without a service error code: how the functions read a refused token (docs/internals.md). */
export function tokenRefused(answer: ReadAnswer): boolean {
  return (
    answer.status === 401 ||
    (answer.status === 403 && readServiceError(answer.body).serviceCode === undefined)
  );
}

/** A refusal the functions read as the service's (a permanent SyncFailed), not a token or outage problem. */
export function isServiceRefusal(answer: ReadAnswer): boolean {
  return (
    answer.status >= 400 &&
    answer.status < 500 &&
    ![401, 408, 425, 429].includes(answer.status) &&
    !tokenRefused(answer)
  );
}

export const records = (answer: ReadAnswer): Record<string, unknown>[] | undefined =>
  answer.status >= 200 && answer.status < 300 && Array.isArray(answer.body)
    ? answer.body.filter(isRecord)
    : undefined;

export function badRequestLine(name: string, what: string, answer: ReadAnswer): CheckLine {
  const shown = describeAnswer(answer);
  if (answer.status === 0) return line(name, 'not observable', `${what}: ${shown}`);
  if (isServiceRefusal(answer)) {
    return readServiceError(answer.body).serviceCode !== undefined ||
      readServiceError(answer.body).serviceMessage !== undefined
      ? line(name, 'confirmed', `${what} answered ${shown}: read as the service's refusal`)
      : line(name, 'contradicted', `${what} answered ${answer.status} with no code or message to report`);
  }
  if (tokenRefused(answer)) {
    return line(
      name,
      'contradicted',
      `${what} answered ${shown}: the functions would take a bad request for a refused token (records wait instead of failing)`,
    );
  }
  return line(name, 'contradicted', `${what} answered ${shown}, not a 4xx refusal`);
}
