import type { DeliveryActivity } from './delivery.ts';
import type { TrialWatchActivity } from './runtime.ts';

/** One line per thing the local runtime did, for `--verbose` and serve mode. */
export function describeActivity(activity: DeliveryActivity | TrialWatchActivity): string {
  const time = new Date().toISOString().slice(11, 23);
  switch (activity.kind) {
    case 'published': {
      const { event, direction } = activity;
      const account = String(event.detail['accountId'] ?? '-');
      return `${time}  ${direction.padEnd(8)} ${event['detail-type']}  account ${account}  id ${event.id}`;
    }
    case 'duplicate':
      return `${time}  duplicate ${activity.event['detail-type']} ${activity.event.id} dropped by ${activity.queue}`;
    case 'batch':
      return `${time}  ${activity.functionName} ran a batch of ${activity.size} (${activity.detailTypes.join(', ')})${
        activity.failed > 0 ? `, ${activity.failed} to retry: ${activity.reason ?? ''}` : ''
      }`;
    case 'dead-letter':
      return `${time}  DLQ ← ${activity.deadLetter.queue} after ${activity.deadLetter.attempts} attempts: ${activity.deadLetter.reason}`;
    case 'trial-watch':
      return `${time}  trial-watch (${activity.trigger}) ${activity.error ? `failed: ${activity.error}` : `done ${JSON.stringify(activity.result ?? null)}`}`;
  }
}
