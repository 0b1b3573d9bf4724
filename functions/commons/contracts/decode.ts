import { inboundContracts } from './registry.ts';
import { type DecodeOptions, type DecodeResult, decodeWithContracts } from './route-decoder.ts';

export {
  type DecodeFailure,
  type DecodeFailureCode,
  type DecodeOptions,
  type DecodeResult,
  type InboundEvent,
  MAX_DETAIL_BYTES,
} from './route-decoder.ts';

/**
 * Decodes one SQS message body (an EventBridge event) into a typed inbound event of any inbound
 * detail-type, or says precisely why it cannot be one. Never throws. Handlers decode with their
 * route's contract only (`createRouteDecoder`); this one loads every contract, for tools and tests.
 */
export function decodeInboundMessage(body: string, opts: DecodeOptions): DecodeResult {
  return decodeWithContracts(body, opts, (detailType) => inboundContracts[detailType]);
}
