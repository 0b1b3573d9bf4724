import { type LocalFunction, scheduledEvent } from '../aws/lambda.ts';
import type { LocalDeployment } from '../deployment.ts';
import type { LocalRuntimeOptions, ScheduleRun } from '../runtime.ts';
import { LOCAL_REGION } from '../template.ts';

/**
 * The template's schedule rules, fired at the sandbox clock's time: on request (`runSchedules`,
 * `/_local/scheduled`), or as that clock passes them (`schedules: 'sandbox-clock'`).
 */

export interface LocalSchedules {
  /** Fires the schedule rules (those targeting a function `only` accepts); resolves when their targets are done. */
  fire(trigger: 'clock' | 'request', only?: (fn: LocalFunction) => boolean): Promise<ScheduleRun[]>;
  /** Fires the schedule of the trial watch; resolves with the function's result. */
  runTrialWatch(trialWatch: LocalFunction): Promise<unknown>;
  /** Firings whose targets are not done yet. */
  busy(): boolean;
}

/** Sets the schedules up; in `sandbox-clock` mode the ticker's stop is pushed onto `cleanup`. */
export async function startSchedules(
  deployed: LocalDeployment,
  sandboxUrl: string,
  options: Pick<LocalRuntimeOptions, 'schedules' | 'onActivity'>,
  cleanup: Array<() => Promise<void>>,
): Promise<LocalSchedules> {
  const scheduleRuns = new Set<Promise<unknown>>();
  const nextFiring = new Map<string, number>();
  const fire = async (
    trigger: 'clock' | 'request',
    only?: (fn: LocalFunction) => boolean,
  ): Promise<ScheduleRun[]> => {
    const at = await sandboxNow(sandboxUrl);
    const runs = deployed.scheduledRules
      .filter(
        ({ rule }) =>
          !only || rule.targets.some((target) => target.kind === 'lambda' && only(target.function)),
      )
      .map(async ({ rule, schedule }) => {
        nextFiring.set(rule.name, schedule.next(at).getTime());
        const bus = deployed.buses.get(rule.busName);
        const outcomes =
          (await bus?.deliverToTargets(rule, scheduledEvent(rule.arn, LOCAL_REGION, at))) ?? [];
        const run: ScheduleRun = {
          rule: rule.name,
          functionName: rule.targets
            .map((target) => (target.kind === 'lambda' ? target.function.name : target.id))
            .join(','),
          results: outcomes.map((outcome) => outcome.result),
          errors: outcomes.flatMap((outcome) => outcome.errors),
        };
        options.onActivity?.({
          kind: 'schedule',
          rule: rule.name,
          trigger,
          results: run.results,
          errors: run.errors,
        });
        return run;
      });
    const all = Promise.all(runs);
    scheduleRuns.add(all);
    try {
      return await all;
    } finally {
      scheduleRuns.delete(all);
    }
  };
  if (options.schedules === 'sandbox-clock') {
    const startedAt = await sandboxNow(sandboxUrl);
    for (const { rule, schedule } of deployed.scheduledRules)
      nextFiring.set(rule.name, schedule.next(startedAt).getTime());
    let ticking = false;
    const timer = setInterval(() => {
      if (ticking) return;
      ticking = true;
      sandboxNow(sandboxUrl)
        .then((now) => {
          const due = deployed.scheduledRules.some(
            ({ rule }) => (nextFiring.get(rule.name) ?? 0) <= now.getTime(),
          );
          return due ? fire('clock') : [];
        })
        .catch(() => undefined)
        .finally(() => {
          ticking = false;
        });
    }, 1000);
    timer.unref();
    cleanup.push(async () => clearInterval(timer));
  }

  return {
    fire,
    runTrialWatch: async (trialWatch) => {
      const [run] = await fire('request', (fn) => fn === trialWatch);
      if (!run) throw new Error('no schedule targets the trial watch');
      if (run.results[0] === undefined && run.errors.length > 0) throw new Error(run.errors.at(-1));
      return run.results[0];
    },
    busy: () => scheduleRuns.size > 0,
  };
}

/** Scheduled events carry the sandbox's time, so a moved sandbox clock moves the schedules too. */
export async function sandboxNow(sandboxUrl: string): Promise<Date> {
  const response = await fetch(`${sandboxUrl}/_sandbox/clock`);
  if (!response.ok) throw new Error(`sandbox clock answered ${response.status}`);
  const { now } = (await response.json()) as { now?: unknown };
  const at = typeof now === 'string' ? new Date(now) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime())) throw new Error('sandbox clock answered without a valid "now"');
  return at;
}
