import { DEAD_LETTER_ATTRIBUTES } from '#functions/runtime/route-queue.ts';
import type { StoredMessage } from '../aws/sqs-message.ts';
import type { LocalDeployment } from '../deployment.ts';
import type { DeadLetterView, RuntimeActivity } from '../runtime.ts';

/** Dead letters: what the template's dead-letter queues hold, for the /_local/dlq view and progress lines. */

/** Every message of the dead-letter queues, as `dlq()` lists them. */
export function deadLetterList(deployed: LocalDeployment): () => DeadLetterView[] {
  const deadLetterQueues = deployed.queueViews.filter((view) => view.kind === 'dead-letter');
  return () =>
    deadLetterQueues.flatMap((view) =>
      (deployed.queues.get(view.name)?.messages() ?? []).map((message) => deadLetterOf(view.name, message)),
    );
}

/** Reports each message that reaches a dead-letter queue from now on, once. */
export function reportDeadLetters(
  deployed: LocalDeployment,
  onActivity: (activity: RuntimeActivity) => void,
): void {
  for (const view of deployed.queueViews.filter((candidate) => candidate.kind === 'dead-letter')) {
    const queue = deployed.queues.get(view.name);
    if (!queue) continue;
    let seen = new Set(queue.messages().map((message) => message.messageId));
    queue.subscribe(() => {
      const now = queue.messages();
      for (const message of now) {
        if (seen.has(message.messageId)) continue;
        onActivity({ kind: 'dead-letter', deadLetter: deadLetterOf(view.name, message) });
      }
      seen = new Set(now.map((message) => message.messageId));
    });
  }
}

function deadLetterOf(queue: string, message: StoredMessage): DeadLetterView {
  const attributes = message.messageAttributes;
  const attempts = Number(attributes[DEAD_LETTER_ATTRIBUTES.attempts]);
  return {
    queue,
    body: message.body,
    attempts: Number.isInteger(attempts) && attempts > 0 ? attempts : message.receiveCount,
    lastErrorCode: attributes[DEAD_LETTER_ATTRIBUTES.errorCode] ?? 'UNREPORTED',
    reason: attributes[DEAD_LETTER_ATTRIBUTES.errorMessage] ?? message.lastFailure ?? 'no reason recorded',
    messageId: message.messageId,
  };
}
