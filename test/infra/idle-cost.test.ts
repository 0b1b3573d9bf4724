import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SynthesizedStack } from '#local/template.ts';
import {
  currentIdleCostSection,
  END_MARKER,
  IDLE_POLLERS,
  idleCost,
  MONTH_SECONDS,
  PAGE,
  START_MARKER,
} from '#scripts/idle-cost.ts';

/** docs/performance.md, "Idle cost": the counts are the template's, not typed by hand. */

describe('the idle cost', () => {
  it("docs/performance.md's table is the one the template gives (npm run idle-cost -- --write)", async () => {
    // Prepare
    const page = readFileSync(PAGE, 'utf8');
    const shown = page.slice(page.indexOf(START_MARKER), page.indexOf(END_MARKER) + END_MARKER.length);

    // Act
    const current = await currentIdleCostSection();

    // Assess
    expect(shown, 'the template changed: run npm run idle-cost -- --write').toBe(current);
  });

  it('counts alarm metrics, pollers by queue type and scheduled runs from a template', () => {
    // Prepare
    const stacks: SynthesizedStack[] = [
      {
        stackName: 'S',
        template: {
          Resources: {
            Plain: { Type: 'AWS::CloudWatch::Alarm', Properties: { MetricName: 'Errors' } },
            Math: {
              Type: 'AWS::CloudWatch::Alarm',
              Properties: { Metrics: [{ MetricStat: {} }, { MetricStat: {} }, { Expression: 'a+b' }] },
            },
            Fifo: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true } },
            Standard: { Type: 'AWS::SQS::Queue', Properties: {} },
            Mapping: {
              Type: 'AWS::Lambda::EventSourceMapping',
              Properties: { EventSourceArn: { 'Fn::GetAtt': ['Fifo', 'Arn'] } },
            },
            Pipe: { Type: 'AWS::Pipes::Pipe', Properties: { Source: { 'Fn::GetAtt': ['Standard', 'Arn'] } } },
            Watch: { Type: 'AWS::Lambda::Function', Properties: { MemorySize: 512 } },
            Schedule: {
              Type: 'AWS::Events::Rule',
              Properties: {
                ScheduleExpression: 'rate(30 minutes)',
                Targets: [{ Arn: { 'Fn::GetAtt': ['Watch', 'Arn'] } }],
              },
            },
          },
        },
      },
    ];

    // Act
    const lines = idleCost(stacks, 4);

    // Assess
    const count = (prefix: string) => lines.find((entry) => entry.what.startsWith(prefix))?.count;
    const receives = IDLE_POLLERS * (MONTH_SECONDS / 20);
    expect(count('CloudWatch alarms')).toBe(3);
    expect(count('SQS receives of empty FIFO')).toBe(receives);
    expect(count('SQS receives of empty standard')).toBe(receives);
    expect(count('scheduled watch runs: Lambda requests')).toBe(1440);
    expect(count('scheduled watch runs: Lambda compute')).toBe(720);
    expect(count('custom metrics')).toBe(4);
    expect(lines.find((entry) => entry.what.startsWith('CloudWatch alarms'))?.monthly).toBeCloseTo(0.3);
  });
});
