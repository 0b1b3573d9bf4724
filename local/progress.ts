import type { RuntimeActivity } from './runtime.ts';

/**
 * One line per thing the local runtime did, for `--verbose` and serve mode: events put on a bus
 * and the rules they matched, pipe refusals, batches run (with what is retried and why), dead
 * letters, schedule runs and replays from an archive. Names are the template's; long generated ones are shortened to the
 * part a reader recognises (the logical id).
 */
export function describeActivity(activity: RuntimeActivity): string | undefined {
  const time = new Date().toISOString().slice(11, 23);
  switch (activity.kind) {
    case 'put': {
      const { event, rules, bus } = activity;
      const account = String(event.detail['accountId'] ?? '-');
      const where = rules.length > 0 ? `→ ${rules.map(short).join(', ')}` : `matched no rule on bus ${bus}`;
      return `${time}  event    ${event['detail-type']} (${event.source}) account ${account} id ${event.id} ${where}`;
    }
    case 'pipe-forwarded':
      return activity.duplicate
        ? `${time}  pipe     ${short(activity.pipe)} dropped a duplicate (FIFO deduplication)`
        : undefined;
    case 'pipe-failed':
      return `${time}  pipe     ${short(activity.pipe)} could not forward ${activity.size} message(s): ${activity.reason}`;
    case 'batch':
      return `${time}  function ${short(activity.functionName)} ran ${activity.size} record(s) (${activity.detailTypes.join(', ')})${
        activity.failed > 0 ? `, ${activity.failed} to retry: ${activity.reason ?? ''}` : ''
      }`;
    case 'target-failed':
      return `${time}  rule     ${short(activity.rule)} could not deliver ${activity.event.id}: ${activity.error}${
        activity.deadLettered ? ' (sent to its dead-letter queue)' : ''
      }`;
    case 'lambda-async':
      return activity.errors.length > 0
        ? `${time}  function ${short(activity.function)} failed ${activity.errors.length} time(s): ${activity.errors.at(-1)}`
        : undefined;
    case 'dead-letter':
      return `${time}  DLQ      ${short(activity.deadLetter.queue)} ← ${activity.deadLetter.lastErrorCode} after ${activity.deadLetter.attempts} attempt(s): ${activity.deadLetter.reason}`;
    case 'replay':
      return `${time}  replay   ${activity.replay} ${activity.state}${
        activity.state === 'STARTING' ? ` → ${activity.rules.map(short).join(', ') || 'no rule'}` : ''
      }${activity.state === 'STARTING' ? '' : `, ${activity.events} event(s) sent`}${
        activity.reason ? `: ${activity.reason}` : ''
      }`;
    case 'access-denied':
      return `${time}  IAM      denied ${activity.denial.action} on ${activity.denial.resource} to ${activity.denial.principal} ${activity.denial.reason}`;
    case 'schedule':
      return `${time}  schedule ${short(activity.rule)} (${activity.trigger}) ${
        activity.errors.length > 0
          ? `failed: ${activity.errors.at(-1)}`
          : `done ${JSON.stringify(activity.results[0] ?? null)}`
      }`;
  }
}

/** `WorkforceConnector-acme-prod-Service-ConnectorAccountCreatedQueue04E9F7DA.fifo` → `AccountCreatedQueue`. */
export function short(name: string): string {
  const withoutStack = name.replace(/^WorkforceConnector-.+?-(Service|State)-/, '').replace(/^Connector/, '');
  return withoutStack.replace(/[0-9A-F]{8}(\.fifo)?$/, '$1');
}
