/**
 * What an operator tool says when the AWS SDK cannot even start a call: no region, or no
 * credentials. The SDK's own messages ("Region is missing", "Could not load credentials from any
 * providers") do not say what to do; these do. Anything else is left to the caller.
 */
export function awsSetupProblem(error: unknown, command: string): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const text = `${error.name} ${error.message}`;
  if (/region is missing/i.test(text)) {
    return `no AWS region: pass --region <region> (the connector's region) or set AWS_REGION, e.g. AWS_REGION=us-east-1 npm run ${command} -- …`;
  }
  if (error.name === 'CredentialsProviderError' || /could not load credentials/i.test(text)) {
    return `no AWS credentials: sign in first (aws sso login, or set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) with a role allowed to use the connector's queues, then run npm run ${command} again`;
  }
  if (error.name === 'ExpiredToken' || error.name === 'ExpiredTokenException') {
    return `your AWS session has expired: sign in again (aws sso login, or refresh AWS_SESSION_TOKEN), then run npm run ${command} again`;
  }
  return undefined;
}
