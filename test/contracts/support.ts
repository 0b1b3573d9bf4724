import { DEFAULT_INBOUND_SOURCE } from '#functions/commons/contracts/source.ts';

/** An EventBridge event as SQS delivers it, around any detail, for decoder tests. */
export function eventBody(
  detailType: string,
  detail: unknown,
  overrides: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    version: '0',
    id: 'evt-0001',
    'detail-type': detailType,
    source: DEFAULT_INBOUND_SOURCE,
    account: '123456789012',
    time: '2025-03-03T09:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail,
    ...overrides,
  });
}

export const decodeOptions = { source: DEFAULT_INBOUND_SOURCE };
