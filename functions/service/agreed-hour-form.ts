import type { AgreedHour, Cycle } from './records/agreed-hours.ts';

/**
 * Which form an agreed hour takes (full: weeks listed; simple: none) and the cycle spelling of
 * each form, for the agreed hours the connector sends.
 */

export type AgreedHourForm = 'full' | 'simple';

/** The spec spells cycles differently in the two forms; send the spelling of the form being sent. */
export function normalizeCycle(cycle: Cycle, form: AgreedHourForm): Cycle {
  if (form === 'full') {
    if (cycle === 'TWO_WEEKLY') return 'TWO_WEEK';
    if (cycle === 'FOUR_WEEKLY') return 'FOUR_WEEK';
    return cycle;
  }
  if (cycle === 'TWO_WEEK') return 'TWO_WEEKLY';
  if (cycle === 'FOUR_WEEK') return 'FOUR_WEEKLY';
  return cycle;
}

export function agreedHourForm(agreedHour: AgreedHour): AgreedHourForm {
  return agreedHour.details.weeks.length === 0 ? 'simple' : 'full';
}
