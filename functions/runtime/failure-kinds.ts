import {
  IdempotencyAlreadyInProgressError,
  IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import type { InboundEvent } from '#functions/contracts/route-decoder.ts';
import {
  AwaitingBusinessError,
  ConnectorError,
  PermanentError,
  TokenProblemError,
} from '#functions/domain/errors.ts';
import { isServicePause, MAX_WAIT_SECONDS, waitSeconds } from '#functions/runtime/retry-schedule.ts';

/**
 * The kinds of failure a record's use case can end in, told apart by the error it threw: each kind
 * is handled its own way (record-failures.ts).
 */

export type FailureKind =
  | { kind: 'permanent'; code: string; message: string }
  | { kind: 'wait'; code: string; seconds: number; stopsBatch: boolean }
  | { kind: 'in-progress' }
  | { kind: 'attempt'; code: string };

export function classify(error: unknown, event: InboundEvent, receiveCount: number): FailureKind {
  if (error instanceof IdempotencyValidationError) {
    // payloadValidationJmesPath 'detail': the same id came back with another detail.
    return {
      kind: 'permanent',
      code: 'EVENT_ID_REUSED',
      message: `event id ${event.id} was already applied with a different detail; publish a change as a new event`,
    };
  }
  if (error instanceof PermanentError) return { kind: 'permanent', code: error.code, message: error.message };
  // Another invocation holds the same event (a duplicate delivery): it decides; nothing counted.
  if (error instanceof IdempotencyAlreadyInProgressError) return { kind: 'in-progress' };
  if (error instanceof TokenProblemError) {
    return { kind: 'wait', code: error.code, seconds: waitSeconds(receiveCount), stopsBatch: true };
  }
  // The account's AccountCreated was received and has not finally failed: the business is on its
  // way (domain/provisioned-business.ts). Only this account's records wait (FIFO skips the rest of
  // its group); the same doubling waits as for the token, so it applies at most 30 min after.
  if (error instanceof AwaitingBusinessError) {
    return { kind: 'wait', code: error.code, seconds: waitSeconds(receiveCount), stopsBatch: false };
  }
  // A wait that is not the record's failure (isServicePause): the connector's own request budget
  // had no request soon enough (nothing was sent), or the service asked for a longer pause than the
  // client waits out in process. The record waits on its queue (ChangeMessageVisibility), uncounted.
  if (isServicePause(error)) {
    return {
      kind: 'wait',
      code: error.code,
      seconds: Math.min(MAX_WAIT_SECONDS, Math.max(1, Math.ceil((error.retryAfterMs ?? 1000) / 1000))),
      stopsBatch: false,
    };
  }
  return { kind: 'attempt', code: errorCode(error) };
}

export function errorCode(error: unknown): string {
  if (error instanceof ConnectorError) return error.code;
  return error instanceof Error ? error.name : 'UNKNOWN';
}
