export type Region = 'us' | 'uk' | 'au';

export const INSTALL_RESOURCES = [
  'Country',
  'State',
  'Employee',
  'CustomFieldData',
  'EmploymentContract',
  'PayRule',
  'EmployeeAgreement',
  'LeaveRule',
  'LeaveAccrual',
  'Timesheet',
  'TimesheetPayReturn',
  'Location',
  'Area',
  'Address',
  'Metric',
  'AgreedHour',
  'CustomField',
] as const;
export type InstallResource = (typeof INSTALL_RESOURCES)[number];

export type InstallRecord = Record<string, unknown>;
export type InstallTables = Record<InstallResource, InstallRecord[]>;

/** The lenient readings (sandbox/mode.ts) that shape a new install's seed. */
export type SeedReading = 'plain-seed' | 'base-rate-everywhere' | 'utc-timestamps';
export const SEED_READINGS: readonly SeedReading[] = ['plain-seed', 'base-rate-everywhere', 'utc-timestamps'];

/** A metrics:bulk item accepted but not yet visible (the spec reading): applied at `visibleAt`. */
export interface PendingMetric {
  visibleAt: number;
  record: InstallRecord;
}

export interface Install {
  hostname: string;
  region: Region;
  /** The lenient readings of the seed it was created with (decided at its signup; none: the spec's seed). */
  seedReadings: SeedReading[];
  tables: InstallTables;
  /** Last id handed out per resource; ids are never reused, even after destructive writes. */
  lastIds: Record<InstallResource, number>;
  /** Bulk metrics not visible yet, in the order they were accepted. */
  pendingMetrics: PendingMetric[];
}

/** The local time zone of an install's records (unless `utc-timestamps`). */
export const REGION_TIME_ZONES: Readonly<Record<Region, string>> = {
  us: 'America/New_York',
  uk: 'Europe/London',
  au: 'Australia/Sydney',
};

export const SLOT_COUNT = 128;
export const SLOT_PATTERN = /^F(0[1-9]|[1-9][0-9]|1[01][0-9]|12[0-8])$/;

export function slotName(index: number): string {
  return `F${String(index).padStart(2, '0')}`;
}

export function emptySlots(): Record<string, null> {
  const slots: Record<string, null> = {};
  for (let index = 1; index <= SLOT_COUNT; index += 1) slots[slotName(index)] = null;
  return slots;
}

export interface PersonInfo {
  Id: number;
  DisplayName: string;
  EmployeeProfile: number;
  Employee: number;
  Photo: string;
  Pronouns: number;
  CustomPronouns: string | null;
}

export function personInfo(employeeId: number, displayName: string): PersonInfo {
  return {
    Id: employeeId,
    DisplayName: displayName,
    EmployeeProfile: employeeId,
    Employee: employeeId,
    Photo: '',
    Pronouns: 0,
    CustomPronouns: null,
  };
}

/** The install owner (employee 1) is the creator of everything the sandbox writes. */
export const INSTALL_OWNER = { id: 1, displayName: 'Jordan Lee' } as const;

export function dpMetaData(system: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    System: system,
    CreatorInfo: personInfo(INSTALL_OWNER.id, INSTALL_OWNER.displayName),
    ...extra,
  };
}

export function nextId(install: Install, resource: InstallResource): number {
  install.lastIds[resource] += 1;
  return install.lastIds[resource];
}

export function findById(
  install: Install,
  resource: InstallResource,
  id: unknown,
): InstallRecord | undefined {
  return install.tables[resource].find((record) => record.Id === id);
}
