import { App, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { queueRoutes } from '#functions/routes.ts';
import { ConnectorConfigError, loadConnectorConfig } from '#lib/config.ts';
import { targetProblems } from '#lib/config-deployment.ts';
import { addConnectorStacks } from '#lib/connector-app.ts';

/**
 * The ready connector app: `cdk synth` / `cdk deploy` with connector.config.json (or
 * `-c config=path`) and any config field overridden as cdk context (`-c stage=dev`). The stacks go to
 * the config's `account` and `region`; credentials or a profile of another account or region stop
 * the synth (lib/config-deployment.ts, targetProblems).
 */
const app = new App();
try {
  const config = loadConnectorConfig(app.node, {
    cwd: process.cwd(),
    knownRoutes: queueRoutes,
  });
  const { account, region } = config;
  if (account === undefined || region === undefined) {
    throw new ConnectorConfigError('connector config', ['account and region are required']);
  }
  const problems = targetProblems({ account, region }, process.env);
  if (problems.length > 0) throw new ConnectorConfigError('target of the deploy', problems);
  addConnectorStacks(app, config, { env: { account, region } });
  Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app, { verbose: true }));
  app.synth();
} catch (error) {
  if (!(error instanceof ConnectorConfigError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
