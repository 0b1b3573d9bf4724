import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger, createMetrics, REDACTED, redactText } from '#functions/runtime/observability.ts';
import { captureOutput } from './captured-output.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('logger redaction', () => {
  it('masks the authorization header, token, e-mail and phone fields at any depth', () => {
    // Prepare
    const output = captureOutput();
    const logger = createLogger();

    // Act
    logger.info('calling the service', {
      request: {
        headers: { Authorization: 'Bearer live-token-123', 'content-type': 'application/json' },
        body: { userData: { email: 'owner@example.com', mobileNumber: '0412 345 678', firstName: 'Avery' } },
      },
      token: 'live-token-123',
      accountId: 'acct-1001',
    });

    // Assess
    const text = JSON.stringify(output.jsonLines());
    expect(text).not.toContain('live-token-123');
    expect(text).not.toContain('owner@example.com');
    expect(text).not.toContain('0412 345 678');
    expect(text).not.toContain('Avery');
    expect(text).toContain('acct-1001');
    expect(text).toContain('application/json');
    expect(output.jsonLines()[0]).toMatchObject({ token: REDACTED });
  });

  it('masks e-mails and bearer tokens inside free text, including error messages', () => {
    // Prepare
    const output = captureOutput();
    const logger = createLogger();

    // Act
    logger.error('signup refused for jane.doe@example.org', {
      error: new Error('service said: Authorization: Bearer abc.def-ghi rejected for +61 412 345 678'),
    });

    // Assess
    const text = JSON.stringify(output.jsonLines());
    expect(text).not.toContain('jane.doe@example.org');
    expect(text).not.toContain('abc.def-ghi');
    expect(text).not.toContain('412 345 678');
    expect(text).toContain('signup refused for');
  });
});

describe('redactText', () => {
  it('leaves ids, timestamps and hostnames untouched', () => {
    // Prepare
    const text = 'account acct-1001 employee 20240101 at 2025-03-01T10:00:00Z on cafe-1.us.sandbox.test';

    // Act
    const redacted = redactText(text);

    // Assess
    expect(redacted).toBe(text);
  });
});

describe('metrics notices', () => {
  it('prints nothing for an invocation that recorded no metric, and still publishes those that did', () => {
    // Prepare
    const output = captureOutput();
    const metrics = createMetrics(createLogger());

    // Act
    metrics.publishStoredMetrics();
    metrics.addMetric('RecordsProcessed', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();

    // Assess: one EMF line, and no "No application metrics to publish" notice
    const lines = output.jsonLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ RecordsProcessed: 1 });
    expect(output.text()).not.toContain('No application metrics');
  });
});
