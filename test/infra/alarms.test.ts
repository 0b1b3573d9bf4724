import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { queueRoutes } from '#functions/routes.ts';
import {
  alarmCatalog,
  CONNECTOR_PAGE_COMPOSITE,
  CONNECTOR_TICKET_COMPOSITE,
  ROUTE_COMPOSITE_SUFFIX,
} from '#lib/alarm-catalog.ts';
import { ConnectorConfigError } from '#lib/config.ts';
import { repositoryDocsUrl } from '#lib/config-alarms.ts';
import { addConnectorStacks } from '#lib/connector-app.ts';
import { namesOf } from '#lib/deployment-names.ts';
import { alarmIdsIn, compositeIds, documentedAlarmShape, writeAlarmsDoc } from '#scripts/alarms-doc.ts';
import { connectorConfig, type SynthesizedConnector, synthesizeConnector } from './synthesize.ts';

type Properties = Record<string, unknown>;

/** Alarm id (its name without the deployment's prefix) → its properties and logical id. */
function alarmsById(
  synthesized: SynthesizedConnector,
  type: string,
): Map<string, { logicalId: string; props: Properties }> {
  const prefix = `${namesOf(synthesized.config).alarm('')}`;
  const found = synthesized.service.findResources(type) as Record<string, { Properties: Properties }>;
  return new Map(
    Object.entries(found).map(([logicalId, resource]) => [
      String(resource.Properties.AlarmName).slice(prefix.length),
      { logicalId, props: resource.Properties },
    ]),
  );
}

/** The logical ids of the alarms a composite's rule names (`ALARM("<GetAtt Arn>")`). */
function ruleMembers(rule: unknown): string[] {
  return [...JSON.stringify(rule).matchAll(/\{"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]\}/g)].map(
    (match) => match[1]!,
  );
}

const DEPLOY_DOC = new URL('../../docs/deploy.md', import.meta.url);

describe('alarms that page well', () => {
  let example: SynthesizedConnector;
  let metric: Map<string, { logicalId: string; props: Properties }>;
  let composite: Map<string, { logicalId: string; props: Properties }>;
  const shape = documentedAlarmShape(false);
  const catalog = alarmCatalog(shape);

  beforeAll(() => {
    example = synthesizeConnector(connectorConfig(), { cloudFormationValidation: false });
    metric = alarmsById(example, 'AWS::CloudWatch::Alarm');
    composite = alarmsById(example, 'AWS::CloudWatch::CompositeAlarm');
  });

  it('makes exactly the alarms of the catalog, and the composites per route and for the connector', () => {
    // Assess
    expect([...metric.keys()].sort()).toEqual(catalog.map((alarm) => alarm.id).sort());
    expect([...composite.keys()].sort()).toEqual(compositeIds(shape).sort());
  });

  it('notifies only through the composites: the connector page composite pages, every other ticket', () => {
    // Prepare
    const topicOf = (id: string) => JSON.stringify(composite.get(id)!.props.AlarmActions);
    const pageTopic = topicOf(CONNECTOR_PAGE_COMPOSITE);

    // Assess
    for (const [id, { props }] of metric) {
      expect(props.AlarmActions, id).toBeUndefined();
      expect(props.OKActions, id).toBeUndefined();
    }
    expect(pageTopic).not.toEqual(topicOf(CONNECTOR_TICKET_COMPOSITE));
    for (const id of composite.keys()) {
      if (id !== CONNECTOR_PAGE_COMPOSITE)
        expect(topicOf(id), id).toEqual(topicOf(CONNECTOR_TICKET_COMPOSITE));
    }
    expect(pageTopic).toMatch(/"Ref":"ConnectorAlarmTopic[0-9A-F]{8}"/);
  });

  it('puts every page alarm in the page composite, each route alarm in its route composite, the rest in the ticket one', () => {
    // Prepare
    const logicalIds = (ids: readonly string[]) => ids.map((id) => metric.get(id)!.logicalId).sort();
    const membersOf = (id: string) => ruleMembers(composite.get(id)!.props.AlarmRule).sort();

    // Assess
    expect(membersOf(CONNECTOR_PAGE_COMPOSITE)).toEqual(
      logicalIds(catalog.filter((alarm) => alarm.severity === 'page').map((alarm) => alarm.id)),
    );
    expect(membersOf(CONNECTOR_TICKET_COMPOSITE)).toEqual(
      logicalIds(
        catalog.filter((alarm) => alarm.severity === 'ticket' && !alarm.route).map((alarm) => alarm.id),
      ),
    );
    for (const route of queueRoutes) {
      expect(membersOf(`${route.detailType}${ROUTE_COMPOSITE_SUFFIX}`), route.detailType).toEqual(
        logicalIds(catalog.filter((alarm) => alarm.route === route.detailType).map((alarm) => alarm.id)),
      );
    }
    // Dead letters, give-ups and the token page (docs/deploy.md, "Alarms").
    const page = catalog.filter((alarm) => alarm.severity === 'page').map((alarm) => alarm.id);
    expect(page).toEqual(
      expect.arrayContaining([
        'AccountCreatedDeadLetters',
        'RefusalDeadLetters',
        'SyncFailedOperator',
        'TokenProblems',
      ]),
    );
    expect(page).not.toContain('AccountCreatedQueueAge');
  });

  it('does not warn when both topics have a subscriber', () => {
    // Assess
    expect(
      Annotations.fromStack(example.stacks.service).findWarning(
        '*',
        Match.stringLikeRegexp('NO ONE WILL HEAR'),
      ),
    ).toEqual([]);
  });

  it('keeps the ticket composites quiet while the token alarm pages', () => {
    // Assess
    const token = metric.get('TokenProblems')!.logicalId;
    for (const [id, { props }] of composite) {
      if (id === CONNECTOR_PAGE_COMPOSITE) expect(props.ActionsSuppressor, id).toBeUndefined();
      else expect(JSON.stringify(props.ActionsSuppressor), id).toContain(token);
    }
  });

  it('fires on one datapoint only where it means loss, else on 3 of 5 (the default)', () => {
    // Assess
    for (const alarm of catalog) {
      const { props } = metric.get(alarm.id)!;
      const expected = alarm.lossOnFirstDatapoint ? [1, 1] : [3, 5];
      expect([props.DatapointsToAlarm, props.EvaluationPeriods], alarm.id).toEqual(expected);
    }
    expect(catalog.filter((alarm) => alarm.lossOnFirstDatapoint).map((alarm) => alarm.id)).toEqual(
      expect.arrayContaining(['AccountCreatedDeadLetters', 'SyncFailedOperator']),
    );
  });

  it('lists every alarm and composite of the template in docs/deploy.md, in step with the code', () => {
    // Prepare
    const doc = readFileSync(DEPLOY_DOC, 'utf8');

    // Act
    const listed = alarmIdsIn(doc);

    // Assess: the example has no consumers; the docs list their alarm too, marked so.
    expect(listed.filter((id) => id !== 'ConsumerDeliveryDeadLetters').sort()).toEqual(
      [...metric.keys(), ...composite.keys()].sort(),
    );
    expect(listed).toContain('ConsumerDeliveryDeadLetters');
    expect(doc).toContain(`**${metric.size} metric alarms**`);
    expect(doc).toContain(`**${composite.size} composite alarms**`);
    expect(writeAlarmsDoc(true), 'docs/deploy.md alarm list is out of date: run npm run policies').toBe(
      false,
    );
  });
});

describe('alarm settings', () => {
  it('uses the configured M of N, and warns loudly at synth for each topic nobody subscribes to', () => {
    // Prepare
    const config = connectorConfig({
      alarms: {
        datapointsToAlarm: 2,
        evaluationPeriods: 4,
        runbookBaseUrl: 'https://github.com/example/workforce-connector/blob/main/docs',
      },
    });

    // Act
    const synthesized = synthesizeConnector(config);
    const warnings = Annotations.fromStack(synthesized.stacks.service);

    // Assess
    const queueAge = alarmsById(synthesized, 'AWS::CloudWatch::Alarm').get('AccountCreatedQueueAge')!;
    expect([queueAge.props.DatapointsToAlarm, queueAge.props.EvaluationPeriods]).toEqual([2, 4]);
    warnings.hasWarning('*', Match.stringLikeRegexp('NO ONE WILL HEAR PAGE ALARMS'));
    warnings.hasWarning('*', Match.stringLikeRegexp('NO ONE WILL HEAR TICKET ALARMS'));
    synthesized.service.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('refuses M greater than N', () => {
    // Act
    const parse = () => connectorConfig({ alarms: { datapointsToAlarm: 4, evaluationPeriods: 3 } });

    // Assess
    expect(parse).toThrow(/alarms\.datapointsToAlarm: expected at most evaluationPeriods/);
  });

  it('stops synth without a runbook URL when package.json names no repository', () => {
    // Prepare
    const config = connectorConfig({ alarms: { email: 'ops@example.com' } });
    const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

    // Act
    const synth = () =>
      addConnectorStacks(new App(), config, { env: { account: '123456789012', region: 'us-east-1' } });

    // Assess: this repository's package.json has no `repository`, so the config must give it.
    expect(repositoryDocsUrl(packageJson)).toBeUndefined();
    expect(synth).toThrow(ConnectorConfigError);
    expect(synth).toThrow(/alarms\.runbookBaseUrl: is required/);
  });

  it("reads the docs URL from package.json's repository in each form npm documents", () => {
    // Assess
    const docs = 'https://github.com/acme/connector/blob/HEAD/docs';
    expect(repositoryDocsUrl({ repository: 'github:acme/connector' })).toBe(docs);
    expect(repositoryDocsUrl({ repository: 'acme/connector' })).toBe(docs);
    expect(
      repositoryDocsUrl({ repository: { type: 'git', url: 'git+https://github.com/acme/connector.git' } }),
    ).toBe(docs);
    expect(repositoryDocsUrl({ repository: 'https://gitlab.com/acme/connector' })).toBeUndefined();
    expect(repositoryDocsUrl({})).toBeUndefined();
  });
});
