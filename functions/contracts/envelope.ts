import * as z from 'zod';
import { hasInstantKey, isoDateTime } from './date-time.ts';

/**
 * The body of a route's FIFO message, as the intake pipe writes it: the EventBridge event,
 * unchanged, under `event`. The pipe's input template wraps the intake message's body in JSON
 * because a bare `<$.body>` would not arrive as JSON: "If the original payload is a valid JSON
 * string (for example {"key": "value"}), then use of the input transformer with source specific body
 * data will result in the quotes within the original source payload being removed ... To have the
 * target receive the original source data without generating invalid JSON, wrap the source body
 * data input transformer in JSON" (EventBridge user guide, "Amazon EventBridge Pipes input
 * transformation", Implicit body data parsing). `lib/` builds the pipe from this template.
 */
export const PIPE_EVENT_KEY = 'event';
export const PIPE_INPUT_TEMPLATE = `{"${PIPE_EVENT_KEY}": <$.body>}`;

/**
 * An EventBridge event as a rule target receives it. Loose on purpose: EventBridge may add envelope
 * fields (a replay adds `replay-name`), and the detail is checked by its own contract.
 */
export const eventBridgeEnvelope = z.looseObject({
  version: z.string(),
  id: z.string().min(1).max(128),
  'detail-type': z.string().min(1).max(128),
  source: z.string().min(1).max(256),
  account: z.string(),
  // The position of an event without occurredAt (functions/domain/event-order.ts): keyable.
  time: isoDateTime({ offset: true }).refine(hasInstantKey, {
    error: 'must be an instant between the years 0000 and 9999 in UTC',
  }),
  region: z.string(),
  resources: z.array(z.string()),
  detail: z.record(z.string(), z.unknown()),
});

export type EventBridgeEnvelope = z.output<typeof eventBridgeEnvelope>;
