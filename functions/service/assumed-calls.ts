import * as z from 'zod';
import { InvalidRequestError, ResponseShapeError } from '#functions/domain/errors.ts';
import type { RetrySafety, ServiceRequest } from './http.ts';
import { isRecord } from './http.ts';
import type { QueryOptions } from './install-query.ts';
import { firstId, parseResponse } from './parsing.ts';

/**
 * Install calls the spec names without showing their request or answer: the timesheet custom
 * field definition ("The path of this call: not shown") and the bulk assignment of an agreement
 * (`employees:bulk`, "Request and response of that endpoint: not shown"). Where each is sent and
 * how its body is built are deploy settings (service assumptions); the answers are read tolerantly.
 */

export interface AssumedCallSettings {
  /** POST path (below the install base URL) that creates a timesheet custom field definition. */
  timesheetFieldPath: string;
  /** QUERY resource listing the install's custom field definitions. */
  timesheetFieldResource: string;
  /** Fields of a definition (created or listed) tried, in order, for its id. */
  timesheetFieldIdFields: readonly string[];
  /** POST path of the bulk assignment of an agreement. */
  employeesBulkPath: string;
  /**
   * Body of the bulk assignment: `agreement-and-ids` sends `{agreementId, employeeIds}`;
   * `items` sends `{data: [{employeeId, agreementId}]}` (the metrics calls' `data` array).
   */
  employeesBulkBody: 'agreement-and-ids' | 'items';
}

/** A timesheet custom field definition as the service takes it (spec: "Timesheet custom field definition"). */
export interface TimesheetFieldDefinition {
  ApiName: string;
  Name: string;
  Type: number;
  /** Tokens joined by a newline. */
  Validation?: string;
  Valuelist?: string[];
  /** Area ids. */
  OperationUnit?: number[];
}

/** A listed definition: its API name, and its id when the record carries one under the configured names. */
export interface ListedTimesheetField {
  apiName: string;
  definitionId?: number | string;
}

/** One employee's result of a bulk assignment. */
export type BulkAssignmentResult =
  | { employeeId: number; applied: true; agreementId?: number | string }
  | { employeeId: number; applied: false; code: string; message: string };

type Call = (
  method: ServiceRequest['method'],
  path: string,
  safety: RetrySafety,
  body?: unknown,
) => Promise<unknown>;

type QueryComplete = <T extends z.ZodType>(
  resource: string,
  options: QueryOptions,
  schema: T,
) => Promise<Array<z.output<T>>>;

/** A definition record: only its system and API name are relied on (its other fields are not shown). */
const listedDefinitionSchema = z.looseObject({
  System: z.string().nullable().optional(),
  ApiName: z.string().min(1),
});

const bulkItemSchema = z.looseObject({
  success: z.boolean().optional(),
  error: z
    .union([z.string(), z.looseObject({ code: z.string().optional(), message: z.string().optional() })])
    .nullable()
    .optional(),
});

export function assumedCalls(call: Call, queryComplete: QueryComplete, settings: AssumedCallSettings) {
  return {
    /**
     * Every timesheet custom field definition of the install (one QUERY that must be complete:
     * deciding what is missing from a cut list would create a second definition of one apiName).
     */
    async listTimesheetFields(): Promise<ListedTimesheetField[]> {
      const records = await queryComplete(
        settings.timesheetFieldResource,
        { conditions: [{ field: 'System', type: 'eq', data: 'Timesheet' }] },
        listedDefinitionSchema,
      );
      // The condition is matched again: an answer broader than asked is narrowed.
      return records
        .filter(
          (record) => record.System === undefined || record.System === null || record.System === 'Timesheet',
        )
        .map((record) => {
          const id = firstId(record, settings.timesheetFieldIdFields);
          return id === undefined
            ? { apiName: record.ApiName }
            : { apiName: record.ApiName, definitionId: id };
        });
    },

    /** Creates one definition; its answer is not shown, so an id is returned only when one is found. */
    async createTimesheetField(
      definition: TimesheetFieldDefinition,
    ): Promise<{ definitionId?: number | string }> {
      const payload = await call('POST', settings.timesheetFieldPath, 'create', {
        System: 'Timesheet',
        ...definition,
      });
      const id =
        firstId(payload, settings.timesheetFieldIdFields) ??
        (isRecord(payload) ? firstId(payload['data'], settings.timesheetFieldIdFields) : undefined);
      return id === undefined ? {} : { definitionId: id };
    },

    /**
     * Assigns an existing agreement to employees in one request. The answer is read per employee
     * when it lists them (an item per employee with `employeeId` and `success`/`error`, in a
     * `data` envelope or bare); an answer that lists none means every employee was assigned.
     */
    async assignAgreement(
      agreementId: number | string,
      employeeIds: readonly number[],
    ): Promise<BulkAssignmentResult[]> {
      if (employeeIds.length === 0) throw new InvalidRequestError('employeeIds must not be empty');
      const body =
        settings.employeesBulkBody === 'items'
          ? { data: employeeIds.map((employeeId) => ({ employeeId, agreementId })) }
          : { agreementId, employeeIds: [...employeeIds] };
      const payload = await call('POST', settings.employeesBulkPath, 'create', body);
      return bulkResults(payload, employeeIds, `POST ${settings.employeesBulkPath}`);
    },
  };
}

export type AssumedCalls = ReturnType<typeof assumedCalls>;

const EMPLOYEE_ID_FIELDS = ['employeeId', 'EmployeeId', 'Employee'];
const AGREEMENT_ID_FIELDS = ['agreementId', 'AgreementId'];

function bulkResults(
  payload: unknown,
  employeeIds: readonly number[],
  context: string,
): BulkAssignmentResult[] {
  const items = Array.isArray(payload) ? payload : undefined;
  if (items === undefined || !items.some((item) => firstId(item, EMPLOYEE_ID_FIELDS) !== undefined)) {
    return employeeIds.map((employeeId) => ({ employeeId, applied: true }));
  }
  const byEmployee = new Map<number, BulkAssignmentResult>();
  items.forEach((item, index) => {
    const checked = parseResponse(bulkItemSchema, item, context, [index]);
    const employeeId = Number(firstId(checked, EMPLOYEE_ID_FIELDS));
    if (!employeeIds.includes(employeeId)) return;
    const error = checked.error;
    if (checked.success === false || (error !== undefined && error !== null)) {
      const code = typeof error === 'object' && error?.code ? error.code : 'SERVICE_REJECTED';
      const message =
        typeof error === 'string' ? error : (error?.message ?? 'the service did not assign the agreement');
      byEmployee.set(employeeId, { employeeId, applied: false, code, message });
      return;
    }
    const agreementId = firstId(checked, AGREEMENT_ID_FIELDS);
    byEmployee.set(
      employeeId,
      agreementId === undefined ? { employeeId, applied: true } : { employeeId, applied: true, agreementId },
    );
  });
  const missing = employeeIds.filter((employeeId) => !byEmployee.has(employeeId));
  if (missing.length > 0) {
    // A per-employee answer that leaves someone out says nothing about them: not taken as done.
    throw new ResponseShapeError(
      `${context}: the answer lists no result for employees ${missing.join(', ')}`,
    );
  }
  return employeeIds.map((employeeId) => byEmployee.get(employeeId) as BulkAssignmentResult);
}
