import { describe, expect, it } from 'vitest';
import { expectDenials, logDenial, unexpectedDenials } from '#local/iam/denial-log.ts';

/**
 * The suite's IAM guard (test/support/iam-denials.ts) reads the denials at the end of every test
 * file; test files share worker processes, so one file's `expectDenials()` must end with it.
 */

const denial = {
  principal: 'arn:aws:sts::000000000000:assumed-role/fixture/fixture',
  action: 'dynamodb:GetItem',
  resource: 'arn:aws:dynamodb:us-east-1:000000000000:table/fixture',
  reason: 'because no identity-based policy allows the dynamodb:GetItem action',
};

describe('the denial log', () => {
  it('forgets an expectation with the denials it covered, so the next file’s denials are reported', () => {
    // Prepare: a file that denies on purpose.
    expectDenials();
    logDenial(denial);
    const expected = unexpectedDenials();

    // Act: the next file's denial.
    logDenial(denial);
    const next = unexpectedDenials();

    // Assess
    expect(expected).toEqual([]);
    expect(next).toEqual([denial]);
    expect(unexpectedDenials()).toEqual([]);
  });
});
