import { describe, expect, it } from 'vitest';
import { useFlowHarness } from '#test/flows/support/harness.ts';
import { deliver, onlyPublished, provisionedInstall } from './install-support.ts';

// A deployment that knows the service's QUERY maximum (serviceAssumptions.queryMaxRecords); the
// seed holds exactly 5 agreements, so the install-wide listing reaches it.
const flow = useFlowHarness({ config: { serviceAssumptions: { queryMaxRecords: 5 } } });

describe('a QUERY answer that reaches the configured maximum', () => {
  it('is not acted on: PayRatesRequested for the whole install ends in SyncFailed QUERY_LIMIT_REACHED', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'query-limit');

    // Act
    const delivery = await deliver(flow, 'pay-rates', 'PayRatesRequested', { accountId });

    // Assess
    expect(delivery.failures).toEqual([]);
    expect(onlyPublished(delivery, 'SyncFailed')).toMatchObject({
      code: 'QUERY_LIMIT_REACHED',
      message: expect.stringContaining('employeeIds'),
    });
  });

  it('leaves narrower reads alone: the same request by employee answers', async () => {
    // Prepare
    const { accountId } = await provisionedInstall(flow, 'query-limit-by-employee');

    // Act
    const delivery = await deliver(flow, 'pay-rates', 'PayRatesRequested', {
      accountId,
      employeeIds: [1, 2],
    });

    // Assess
    expect(onlyPublished(delivery, 'PayRatesReported')['rates']).toHaveLength(2);
  });
});
