import type { Thing } from './event-order.ts';

/**
 * The things an EmployeeChanged sets, each on its own (partial update per field): every custom
 * field by apiName, the regular hours, the pay rate, every leave balance by leave rule. An event
 * sets only the things it carries; of those, each applies unless a newer event (by occurredAt,
 * then event id) was applied to it first. PayRateAssigned sets the same pay rate things, one per
 * employee it lists (named there `employeeIds[id=<id>]`).
 */
export const employeeThings = {
  customField: (employeeId: number, apiName: string): Thing => ({
    key: `employee#${employeeId}#customField#${apiName}`,
    field: `customFields.${apiName}`,
  }),
  regularHours: (employeeId: number): Thing => ({
    key: `employee#${employeeId}#regularHours`,
    field: 'regularHours',
  }),
  payRate: (employeeId: number, field = 'payRate'): Thing => ({
    key: `employee#${employeeId}#payRate`,
    field,
  }),
  leaveBalance: (employeeId: number, leaveRuleId: number): Thing => ({
    key: `employee#${employeeId}#leaveBalance#${leaveRuleId}`,
    field: `leaveBalances[leaveRuleId=${leaveRuleId}]`,
  }),
};
