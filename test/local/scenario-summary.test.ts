import { describe, expect, it } from 'vitest';
import type { ScenarioReport } from '#local/scenario.ts';
import { formatSummary } from '#local/scenario-summary.ts';

function reportWith(accounts: ScenarioReport['accounts']): ScenarioReport {
  return { steps: [], accounts, inboundCounts: {}, outboundCounts: {}, denied: [], failures: [] };
}

const business = {
  hostname: 'cafe-1.us.sandbox.test',
  externalId: 'acct-1',
  portfolioName: 'Cafe',
  trialEndDate: '2026-12-24T09:00:00+00:00',
};

describe('the npm start summary', () => {
  it('shows the trial end only while the business is on trial', () => {
    // Prepare
    const onTrial = reportWith([
      {
        accountId: 'acct-1',
        hostname: business.hostname,
        business: { ...business, edition: 'SUBSCRIPTION_PRO_TRIAL' },
        gone: false,
        created: [],
      },
    ]);
    const paid = reportWith([
      {
        accountId: 'acct-1',
        hostname: business.hostname,
        business: { ...business, edition: 'SUBSCRIPTION_PAID_PRO_PREMIUM' },
        gone: false,
        created: [],
      },
    ]);

    // Act
    const trialText = formatSummary(onTrial);
    const paidText = formatSummary(paid);

    // Assess
    expect(trialText).toContain(
      'acct-1  cafe-1.us.sandbox.test  SUBSCRIPTION_PRO_TRIAL until 2026-12-24T09:00:00+00:00',
    );
    expect(paidText).toContain('acct-1  cafe-1.us.sandbox.test  SUBSCRIPTION_PAID_PRO_PREMIUM\n');
    expect(paidText).not.toContain('2026-12-24');
  });

  it('lists what was created under its account', () => {
    // Prepare
    const report = reportWith([
      { accountId: 'acct-1', hostname: 'a.test', gone: false, created: ['location L1 → id 3; areas A → 4'] },
      { accountId: 'acct-2', hostname: 'b.test', gone: false, created: ['7 budget metrics (m1, m2 … m7)'] },
    ]);

    // Act
    const text = formatSummary(report);

    // Assess
    expect(text).toMatch(
      / {2}acct-1 {2}a\.test .*\n {4}location L1 → id 3; areas A → 4\n {2}acct-2 {2}b\.test .*\n {4}7 budget metrics/,
    );
  });

  it('says no AWS call was denied, or lists each denied call once with how often it was made', () => {
    // Prepare
    const denial = {
      principal: 'arn:aws:sts::000000000000:assumed-role/EmployeeRole/sync-employee',
      action: 'dynamodb:UpdateItem',
      resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/state',
      reason: 'because no identity-based policy allows the dynamodb:UpdateItem action',
      message: 'User: … (AWS sentence)',
      at: '2026-01-01T00:00:00.000Z',
    };
    const clean = reportWith([]);
    const denied = { ...reportWith([]), denied: [denial, denial], failures: ['AccessDenied: User: …'] };

    // Act
    const cleanText = formatSummary(clean);
    const deniedText = formatSummary(denied);

    // Assess
    expect(cleanText).toContain("AWS calls denied by the template's IAM: none");
    expect(deniedText).toContain("AWS calls denied by the template's IAM: 2");
    expect(deniedText).toContain(
      '✗ arn:aws:sts::000000000000:assumed-role/EmployeeRole/sync-employee: dynamodb:UpdateItem on arn:aws:dynamodb:us-east-1:000000000000:table/state because no identity-based policy allows the dynamodb:UpdateItem action (×2)',
    );
  });
});
