import { ApiError, invalid, notFound } from './errors.ts';
import { requireBodyObject, requiredInteger, requiredString } from './fields.ts';
import { employeeOf, type InstallContext, now } from './install.ts';
import { replaceActiveAgreement } from './record-shapes.ts';
import {
  dpMetaData,
  findById,
  INSTALL_OWNER,
  type Install,
  type InstallRecord,
  nextId,
  SLOT_COUNT,
  slotName,
} from './records.ts';
import { json, type Route, type SandboxResponse } from './routing.ts';

/**
 * Calls the spec names without showing their path, request or answer, implemented as the sandbox's
 * assumption (the connector's defaults, `serviceAssumptions`, name the same ones):
 *
 * - Timesheet custom field definition: `POST /api/v1/resource/CustomField` with the spec's payload
 *   (`System` = `Timesheet`, `Name`, `ApiName`, `Type`, `Validation`, `Valuelist`, `OperationUnit`);
 *   definitions are read with `QUERY CustomField`. The spec's rules are checked: the listed types
 *   (1–6, 8), a `Valuelist` for the list types, the shown validation tokens, up to 128 fields. The
 *   spec does not say the service refuses a second definition of one ApiName, so the sandbox does
 *   not: keeping apiNames unique is the caller's job.
 * - `POST /api/management/v2/employees:bulk` with `{agreementId, employeeIds}`: each listed
 *   employee gets an agreement like the given one (its contract and BaseRate), their earlier active
 *   agreements end; the answer lists every employee, `{employeeId, success, agreementId}` or
 *   `{employeeId, success: false, error}` (an unknown employee fails alone).
 */

/** The service's limit: up to 128 timesheet custom fields. */
export const TIMESHEET_FIELD_LIMIT = SLOT_COUNT;
const FIELD_TYPES = [1, 2, 3, 4, 5, 6, 8];
const LIST_TYPES = [5, 6];
const VALIDATION_TOKENS = ['nempty', 'unq'];

const envelope = (data: unknown): SandboxResponse => json(200, { success: true, data });

function stringArray(body: InstallRecord, key: string): string[] | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw invalid(`${key} must be an array of non-empty strings`);
  }
  return value as string[];
}

function areaIds(install: Install, body: InstallRecord): number[] | undefined {
  const value = body['OperationUnit'];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'number' || !Number.isInteger(item))) {
    throw invalid('OperationUnit must be an array of area ids');
  }
  for (const id of value as number[]) {
    if (!findById(install, 'Area', id)) throw notFound(`area ${id} not found`);
  }
  return value as number[];
}

/** The first timesheet slot no definition holds. */
function freeSlot(install: Install): string | undefined {
  const taken = new Set(install.tables.CustomField.map((definition) => definition.Slot));
  for (let index = 1; index <= SLOT_COUNT; index += 1) {
    if (!taken.has(slotName(index))) return slotName(index);
  }
  return undefined;
}

function createTimesheetField(context: InstallContext): SandboxResponse {
  const body = requireBodyObject(context.body);
  if (requiredString(body, 'System') !== 'Timesheet') throw invalid('System must be Timesheet');
  const name = requiredString(body, 'Name');
  const apiName = requiredString(body, 'ApiName');
  const type = requiredInteger(body, 'Type');
  if (!FIELD_TYPES.includes(type)) throw invalid(`Type must be one of ${FIELD_TYPES.join(', ')}`);
  const valuelist = stringArray(body, 'Valuelist');
  if (LIST_TYPES.includes(type) && (valuelist === undefined || valuelist.length === 0)) {
    throw invalid('Valuelist is required for the list types 5 and 6');
  }
  const validation = body['Validation'];
  if (validation !== undefined && validation !== null) {
    if (typeof validation !== 'string') throw invalid('Validation must be a string');
    const unknown = validation
      .split('\n')
      .filter((token) => token !== '' && !VALIDATION_TOKENS.includes(token));
    if (unknown.length > 0) throw invalid(`Validation: unknown token ${unknown[0]}`);
  }
  const { install } = context;
  const operationUnit = areaIds(install, body);
  const slot = freeSlot(install);
  if (slot === undefined) {
    throw new ApiError(
      422,
      'CUSTOM_FIELD_LIMIT',
      `an install has at most ${TIMESHEET_FIELD_LIMIT} timesheet custom fields`,
    );
  }
  const timestamp = now(context);
  const definition: InstallRecord = {
    Id: nextId(install, 'CustomField'),
    System: 'Timesheet',
    Name: name,
    ApiName: apiName,
    Type: type,
    Validation: typeof validation === 'string' ? validation : '',
    Valuelist: valuelist ?? [],
    OperationUnit: operationUnit ?? [],
    Slot: slot,
    Creator: INSTALL_OWNER.id,
    Created: timestamp,
    Modified: timestamp,
    _DPMetaData: dpMetaData('CustomField'),
  };
  install.tables.CustomField.push(definition);
  return json(200, structuredClone(definition));
}

function assignAgreementBulk(context: InstallContext): SandboxResponse {
  const body = requireBodyObject(context.body);
  const agreementId = requiredInteger(body, 'agreementId');
  const employeeIds = body['employeeIds'];
  if (
    !Array.isArray(employeeIds) ||
    employeeIds.length === 0 ||
    employeeIds.some((id) => typeof id !== 'number' || !Number.isInteger(id))
  ) {
    throw invalid('employeeIds must be a non-empty array of employee ids');
  }
  const { install } = context;
  const source = findById(install, 'EmployeeAgreement', agreementId);
  if (!source) throw notFound(`agreement ${agreementId} not found`);
  const timestamp = now(context);
  const results = (employeeIds as number[]).map((employeeId) => {
    let employee: InstallRecord;
    try {
      employee = employeeOf(install, String(employeeId));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { employeeId, success: false, error: { code: error.code, message: error.message } };
    }
    const assigned = replaceActiveAgreement(install, employee, timestamp, {
      Contract: source.Contract as number,
      BaseRate: (source.BaseRate as number | null | undefined) ?? null,
      ...(Array.isArray(source.OverridePayRules)
        ? { OverridePayRules: structuredClone(source.OverridePayRules) }
        : {}),
    });
    return { employeeId, success: true, agreementId: assigned.Id };
  });
  return envelope(results);
}

/** Paths below the install base URL `/installs/{hostname}` (assumed: see above). */
export const assumedInstallRoutes: ReadonlyArray<Route<InstallContext>> = [
  { method: 'POST', pattern: /^\/api\/v1\/resource\/CustomField$/, handle: createTimesheetField },
  { method: 'POST', pattern: /^\/api\/management\/v2\/employees:bulk$/, handle: assignAgreementBulk },
];
