import { describe, expect, it } from 'vitest';
import { labelFunctions, readableLine } from '#local/handler-output.ts';

describe("the handlers' output in a local run", () => {
  it('drops EMF metric lines', () => {
    // Prepare
    const emf = JSON.stringify({
      _aws: { Timestamp: 1, CloudWatchMetrics: [] },
      service: 'x',
      RecordsProcessed: 1,
    });

    // Act + Assess
    expect(readableLine(emf)).toBeUndefined();
  });

  it('shows a log entry as one line: time, level, the function as the template names it, message, its own fields', () => {
    // Prepare
    labelFunctions([['WorkforceConnector-acme-Service-ConnectorPlanChosenFunctionABC', 'change-plan']]);
    const entry = JSON.stringify({
      level: 'WARN',
      message: 'record will be retried',
      timestamp: '2026-11-24T21:34:10.123Z',
      service: 'refuse-unroutable',
      cold_start: false,
      function_name: 'WorkforceConnector-acme-Service-ConnectorPlanChosenFunctionABC',
      function_request_id: 'r-1',
      messageId: 'm-1',
      accountId: 'acct-1',
      code: 'PUBLISH_FAILED',
      attempt: 1,
      maxAttempts: 3,
      error: { name: 'RetryableError', code: 'PUBLISH_FAILED', message: 'EventBridge refused 1 entry' },
    });

    // Act
    const line = readableLine(entry);

    // Assess
    expect(line).toBe(
      '21:34:10.123 WARN  change-plan  record will be retried  accountId=acct-1 code=PUBLISH_FAILED error="PUBLISH_FAILED: EventBridge refused 1 entry" attempt=1/3',
    );
    expect(line).not.toContain('\n');
  });

  it('passes the runtime’s own lines and other text through unchanged', () => {
    // Act + Assess
    expect(readableLine('[1/12] AccountCreated ok → BusinessProvisioned')).toBe(
      '[1/12] AccountCreated ok → BusinessProvisioned',
    );
    expect(readableLine('{not json')).toBe('{not json');
    expect(readableLine('{"some":"object"}')).toBe('{"some":"object"}');
  });
});
