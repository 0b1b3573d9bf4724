import { invalid, notFound } from './errors.ts';
import { isObject } from './fields.ts';
import { applyDueMetrics, QUERYABLE } from './install.ts';
import {
  dpMetaData,
  emptySlots,
  findById,
  INSTALL_OWNER,
  type Install,
  type InstallRecord,
  type InstallResource,
  nextId,
  personInfo,
  REGION_TIME_ZONES,
} from './records.ts';
import type { SandboxState } from './state.ts';
import { toIsoInZone, toIsoOffset } from './time.ts';

/**
 * `POST /_sandbox/installs/{hostname}/records/{Resource}`: records put straight into an install's
 * table, to stage what the service may hold but the seed does not (an unlisted fair-work-week
 * answer, an agreement without BaseRate, ...). Nothing is validated beyond "a JSON object with a
 * usable Id": that is the point. Resource names are those QUERY reads (`Company` and
 * `OperationalUnit` also under their table names `Location` and `Area`).
 */

const STAGEABLE: Readonly<Record<string, InstallResource>> = {
  ...QUERYABLE,
  Location: 'Location',
  Area: 'Area',
};

/** `_DPMetaData.System` as the sandbox writes it for its own records of each table. */
const SYSTEM_NAMES: Partial<Record<InstallResource, string>> = {
  Location: 'Company',
  Area: 'OperationalUnit',
};

export function stageableResources(): string[] {
  return Object.keys(STAGEABLE);
}

export function stageRecords(
  state: SandboxState,
  hostname: string,
  resourceName: string,
  body: unknown,
): { status: number; body: unknown } {
  const install = state.installs.get(hostname);
  if (!install) throw notFound(`install ${hostname} not found`);
  const resource = STAGEABLE[resourceName];
  if (!resource) {
    throw invalid(
      `records cannot be staged for ${resourceName}: the resource must be one QUERY reads (${stageableResources().join(', ')})`,
    );
  }
  const many = Array.isArray(body);
  const inputs: unknown[] = many ? body : [body];
  inputs.forEach((input, index) => {
    const where = many ? `[${index}]` : 'body';
    if (!isObject(input)) throw invalid(`${where} must be a JSON object (one record) or an array of them`);
    const id = input.Id;
    if (id !== undefined && id !== null && !isUsableId(id)) {
      throw invalid(
        `${where}.Id must be a positive integer or a non-empty string (or absent: one is assigned)`,
      );
    }
  });
  applyDueMetrics(install, state.clock.now());
  const stamp = now(state, install);
  const stored = (inputs as InstallRecord[]).map((input) => store(install, resource, input, stamp));
  return { status: 201, body: many ? stored : stored[0] };
}

function isUsableId(id: unknown): boolean {
  return (typeof id === 'number' && Number.isInteger(id) && id > 0) || (typeof id === 'string' && id !== '');
}

function now(state: SandboxState, install: Install): string {
  const at = state.clock.now();
  return state.mode.lenient('utc-timestamps')
    ? toIsoOffset(at)
    : toIsoInZone(at, REGION_TIME_ZONES[install.region]);
}

/** Completes a record as the sandbox writes its own, then inserts it or replaces the one with its Id. */
function store(
  install: Install,
  resource: InstallResource,
  input: InstallRecord,
  stamp: string,
): InstallRecord {
  const table = install.tables[resource];
  const id = input.Id === undefined || input.Id === null ? nextId(install, resource) : input.Id;
  // A staged numeric id moves the counter on, so later creates never reuse it.
  if (typeof id === 'number' && id > install.lastIds[resource]) install.lastIds[resource] = id;
  const record: InstallRecord = {
    ...(resource === 'CustomFieldData' ? emptySlots() : {}),
    Creator: INSTALL_OWNER.id,
    Created: stamp,
    Modified: stamp,
    ...input,
    Id: id,
  };
  if (record._DPMetaData === undefined) record._DPMetaData = metaDataFor(install, resource, record);
  const index = table.findIndex((candidate) => candidate.Id === id);
  if (index >= 0) table[index] = record;
  else table.push(record);
  return structuredClone(record);
}

function metaDataFor(install: Install, resource: InstallResource, record: InstallRecord): unknown {
  const system = SYSTEM_NAMES[resource] ?? resource;
  if (resource !== 'Timesheet') return dpMetaData(system);
  // Timesheets also carry their area and employee, as the seeded ones do.
  const area = findById(install, 'Area', record.OperationalUnit);
  const employee = findById(install, 'Employee', record.Employee);
  const areaName = String(area?.OperationalUnitName ?? '');
  const companyName = String(area?.CompanyName ?? '');
  return dpMetaData(system, {
    OperationalUnitInfo: area
      ? {
          Id: area.Id,
          OperationalUnitName: areaName,
          Company: area.Company,
          CompanyName: companyName,
          LabelWithCompany: `[${companyName}] ${areaName}`,
        }
      : null,
    EmployeeInfo:
      employee && typeof employee.Id === 'number'
        ? personInfo(employee.Id, String(employee.DisplayName ?? `Employee ${employee.Id}`))
        : null,
  });
}
