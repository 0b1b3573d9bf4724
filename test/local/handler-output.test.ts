import { afterEach, describe, expect, it } from 'vitest';
import { labelFunctions, readableLine, showHandlerOutput } from '#local/handler-output.ts';

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

  it('keeps an entry with line breaks in its message on one line', () => {
    // Act
    const line = readableLine(JSON.stringify({ level: 'ERROR', message: 'two\nlines', function_name: 'x' }));

    // Assess
    expect(line).toContain('two\\nlines');
    expect(line).not.toContain('\n');
  });
});

describe('showHandlerOutput', () => {
  const original = Object.getOwnPropertyDescriptor(process.stdout, 'write');
  let seen: string[] = [];

  /** What reaches the terminal: a stand-in for stdout's own write, under the one installed. */
  function captureTerminal(): void {
    seen = [];
    Object.defineProperty(process.stdout, 'write', {
      configurable: true,
      writable: true,
      value: (chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
        seen.push(String(chunk));
        const done = typeof encoding === 'function' ? encoding : callback;
        if (typeof done === 'function') (done as () => void)();
        return true;
      },
    });
  }

  afterEach(() => {
    if (original) Object.defineProperty(process.stdout, 'write', original);
    else delete (process.stdout as { write?: unknown }).write;
  });

  it('joins a line written in pieces, even one split inside a character, and drops EMF lines', () => {
    // Prepare
    captureTerminal();
    const restore = showHandlerOutput('lines');
    const line = Buffer.from('progress: 1 café\n');
    const cut = line.indexOf(Buffer.from('é')) + 1;

    // Act
    process.stdout.write(line.subarray(0, cut));
    process.stdout.write(line.subarray(cut));
    process.stdout.write(`${JSON.stringify({ _aws: {}, RecordsProcessed: 1 })}\n`);
    restore();

    // Assess
    expect(seen.join('')).toBe('progress: 1 café\n');
  });

  it('calls the writer back once its line is out, and writes what is left when restored', () => {
    // Prepare
    captureTerminal();
    const restore = showHandlerOutput('lines');
    const calledBack: string[] = [];

    // Act
    process.stdout.write('first\n', () => calledBack.push('first'));
    process.stdout.write('no newline yet');
    restore();
    process.stdout.write('after restore\n');

    // Assess
    expect(calledBack).toEqual(['first']);
    expect(seen).toEqual(['first\n', 'no newline yet', 'after restore\n']);
  });
});
