import type { PolicyDocument } from './template-iam.ts';

/**
 * The AWS managed policies a template may attach to a role (ManagedPolicyArns), as the AWS Managed
 * Policy Reference Guide gives their current version: the local runtime cannot ask IAM for them, so
 * it knows the few a Lambda function or a pipe commonly uses, statement for statement. A role that
 * names any other managed policy stops the runtime at start-up (template-iam.ts): what it grants is
 * unknown here, and a guess would make the enforcement say yes or no for the wrong reason.
 */
export const AWS_MANAGED_POLICIES: Readonly<Record<string, PolicyDocument>> = {
  // AWS Managed Policy Reference Guide, "AWSLambdaBasicExecutionRole" (version 1).
  'service-role/AWSLambdaBasicExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: '*',
      },
    ],
  },
  // AWS Managed Policy Reference Guide, "AWSLambdaSQSQueueExecutionRole".
  'service-role/AWSLambdaSQSQueueExecutionRole': {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: [
          'sqs:ReceiveMessage',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'logs:CreateLogGroup',
          'logs:CreateLogStream',
          'logs:PutLogEvents',
        ],
        Resource: '*',
      },
    ],
  },
};

/** The managed policy an ARN names (`arn:aws:iam::aws:policy/<path>`), if it is one known here. */
export function awsManagedPolicy(arn: string): { name: string; document: PolicyDocument } | undefined {
  const match = /^arn:aws[\w-]*:iam::aws:policy\/(.+)$/.exec(arn);
  const path = match?.[1];
  const document = path === undefined ? undefined : AWS_MANAGED_POLICIES[path];
  return path && document ? { name: path.slice(path.lastIndexOf('/') + 1), document } : undefined;
}
