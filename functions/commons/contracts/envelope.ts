import * as z from 'zod';

/**
 * An EventBridge event as an SQS queue receives it from a rule target: the body of every
 * inbound message. Loose on purpose: EventBridge may add envelope fields, and the detail is
 * checked by its own contract.
 */
export const eventBridgeEnvelope = z.looseObject({
  version: z.string(),
  id: z.string().min(1).max(128),
  'detail-type': z.string().min(1).max(128),
  source: z.string().min(1).max(256),
  account: z.string(),
  time: z.iso.datetime({ offset: true }),
  region: z.string(),
  resources: z.array(z.string()),
  detail: z.record(z.string(), z.unknown()),
});

export type EventBridgeEnvelope = z.output<typeof eventBridgeEnvelope>;
