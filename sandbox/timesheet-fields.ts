import type { Install, InstallRecord } from './records.ts';

/**
 * "Plus one property per named field (API name) that mirrors its slot": a timesheet custom field
 * data record read through the API carries, for every timesheet field definition of the install,
 * its API name with the value of the definition's slot (values already named in the record, as
 * the seeded schedule-change answers are, stay as they are).
 */
export function withNamedFields(install: Install, record: InstallRecord): InstallRecord {
  if (record.System !== 'Timesheet') return record;
  const definitions = install.tables.CustomField.filter((definition) => definition.System === 'Timesheet');
  if (definitions.length === 0) return record;
  const named: InstallRecord = { ...record };
  for (const definition of definitions) {
    const apiName = definition.ApiName;
    const slot = definition.Slot;
    if (typeof apiName !== 'string' || typeof slot !== 'string' || apiName in named) continue;
    named[apiName] = record[slot] ?? null;
  }
  return named;
}
