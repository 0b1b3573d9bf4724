import type { SqsQueue } from '../aws/sqs.ts';
import type { QueueView } from '../deployment.ts';
import type { RuleWiring } from './event-buses.ts';

/**
 * What each queue is for, told from how the template wires it (which rule, pipe or redrive policy
 * feeds it), since a queue's name says nothing the runtime may rely on: the kind and route that
 * the runtime's `resources()` and its dead-letter view report.
 */
export function queueViews(
  queues: ReadonlyMap<string, SqsQueue>,
  rules: Pick<RuleWiring, 'ruleTargets' | 'scheduleDeadLetters'>,
  pipeTargets: ReadonlyMap<string, string>,
): QueueView[] {
  return [...queues.values()].map((queue) =>
    queueView(queue, queues, rules.ruleTargets, pipeTargets, rules.scheduleDeadLetters),
  );
}

function queueView(
  queue: SqsQueue,
  queues: ReadonlyMap<string, SqsQueue>,
  ruleTargets: ReadonlyMap<string, { detailTypes: string[] | null }>,
  pipeTargets: ReadonlyMap<string, string>,
  scheduleDeadLetters: ReadonlySet<string>,
): QueueView {
  const routeOf = (name: string): string | null => {
    const intake = pipeTargets.get(name) ?? name;
    const types = ruleTargets.get(intake)?.detailTypes;
    return types && types.length === 1 ? (types[0] as string) : null;
  };
  const base = { name: queue.name, url: queue.url, arn: queue.arn };
  const sources = [...queues.values()].filter((other) => other.redrive?.deadLetterQueue === queue);
  if (sources.length > 0) {
    const routes = [...new Set(sources.map((source) => routeOf(source.name)))];
    const source = sources[0] as SqsQueue;
    const deadLettersOf = pipeTargets.has(source.name)
      ? 'route'
      : ruleTargets.get(source.name)?.detailTypes
        ? 'intake'
        : 'refusal';
    return {
      ...base,
      kind: 'dead-letter',
      route: routes.length === 1 ? (routes[0] ?? null) : null,
      deadLettersOf,
    };
  }
  if (scheduleDeadLetters.has(queue.name)) {
    return { ...base, kind: 'dead-letter', route: null, deadLettersOf: 'schedule' };
  }
  if (pipeTargets.has(queue.name)) return { ...base, kind: 'route', route: routeOf(queue.name) };
  const fed = ruleTargets.get(queue.name);
  if (fed) return { ...base, kind: fed.detailTypes ? 'intake' : 'refusal', route: routeOf(queue.name) };
  return { ...base, kind: 'other', route: null };
}
