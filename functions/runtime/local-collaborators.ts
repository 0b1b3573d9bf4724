import type { Interruptions } from '#functions/runtime/dependencies.ts';
import type { BudgetTake } from '#functions/store/request-budget.ts';

/**
 * Collaborators a local run adds to every function's dependencies in its own process (the chaos
 * run's interruptions, scripts/chaos/crash-points.ts, and its request-budget observer). Deployed functions never set any: a Lambda
 * process hosts one function, built from its bundle alone. A module of its own, importing nothing
 * at run time, so a tool can set it without loading (and configuring) the handlers' modules.
 */
export interface LocalCollaborators {
  readonly interruptions?: Interruptions;
  /** Hears every take of the request budget (the chaos run measures when calls waited on it). */
  readonly budgetObserver?: (take: BudgetTake) => void;
}

/**
 * Held by the process, not by this module: the local runtime loads each function in a module
 * graph of its own (local/function-host.ts), so each has its own instance of this module.
 */
const KEY = Symbol.for('workforce-connector.local-collaborators');
const holder = globalThis as { [KEY]?: LocalCollaborators };

/** For local runs that host the functions in their own process (local/function-host.ts). */
export function useLocalCollaborators(collaborators: LocalCollaborators): void {
  holder[KEY] = collaborators;
}

export function localCollaborators(): LocalCollaborators {
  return holder[KEY] ?? {};
}
