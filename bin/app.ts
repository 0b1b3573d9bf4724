import { App, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { queueRoutes } from '#functions/routes.ts';
import { ConnectorConfigError, loadConnectorConfig } from '#lib/config.ts';
import { addConnectorStacks } from '#lib/connector-app.ts';

/**
 * The ready connector app: `cdk synth` / `cdk deploy` with connector.config.json (or
 * `-c config=path`) and any config field overridden as cdk context (`-c partnerName=acme`).
 */
const app = new App();
try {
  const config = loadConnectorConfig(app.node, {
    cwd: process.cwd(),
    knownRoutes: queueRoutes,
  });
  addConnectorStacks(app, config, {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app, { verbose: true }));
  app.synth();
} catch (error) {
  if (!(error instanceof ConnectorConfigError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
