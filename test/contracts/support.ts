import { PIPE_EVENT_KEY } from '#functions/contracts/envelope.ts';
import { inboundContracts } from '#functions/contracts/registry.ts';
import { createRouteDecoder } from '#functions/contracts/route-decoder.ts';
import { DEFAULT_INBOUND_SOURCE } from '#functions/contracts/source.ts';

/** An EventBridge event as a rule delivers it, around any detail. */
export function busEvent(
  detailType: string,
  detail: unknown,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
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
  };
}

/** A route FIFO message body as the intake pipe writes it: `{"event": <the event>}`. */
export function pipeBody(event: unknown): string {
  return JSON.stringify({ [PIPE_EVENT_KEY]: event });
}

/** The FIFO message body for an event around any detail, for decoder tests. */
export function eventBody(
  detailType: string,
  detail: unknown,
  overrides: Record<string, unknown> = {},
): string {
  return pipeBody(busEvent(detailType, detail, overrides));
}

export const decodeOptions = { source: DEFAULT_INBOUND_SOURCE };

/** A decoder that knows every inbound contract (each handler's knows its own): the contract tests' subject. */
export const decodeInboundMessage = createRouteDecoder(Object.values(inboundContracts));
