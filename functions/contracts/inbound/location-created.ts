import * as z from 'zod';
import { accountId, occurredAt, positiveId, refuseRepeats, text } from '../fields.ts';
import { DEFAULT_INBOUND_SOURCE } from '../source.ts';

/** The default source; a deployment may configure another, which the decoder and publisher take. */
export const source = DEFAULT_INBOUND_SOURCE;
export const detailType = 'LocationCreated';
export const version = '1';
export const description =
  'A partner location to create in the business (supervise/company), with its areas (supervise/department): areas absent → one area named like the location; `areas: []` → no area (an Enterprise top-level node needs none). For a location the connector already created, the areas it does not have yet (by name) are added.';

/** Last writer wins per thing: what this contract sets, and what an older event does (events/README.md). */
export const ordering =
  "The location, by `locationRef`, taken whole: the location and the areas the event lists. The newest event creates what is missing; an older one arriving after it creates nothing and is answered with SyncSkipped (`location`). The service can only create locations and areas, so a newer event adds the areas it lists but renames and removes nothing: keep a location's fields as first sent and only add areas.";

const area = z.strictObject({
  name: text(200),
  exportName: text(64).optional(),
  address: text(500).optional(),
  /** true: a geographically located area separate from the location (`intOpunitType` 1). */
  geographic: z.boolean().optional(),
});

export const schema = z
  .strictObject({
    accountId,
    occurredAt: occurredAt.optional(),
    locationRef: text(128),
    name: text(200),
    code: text(64).optional(),
    tradingName: text(200).optional(),
    address: text(500).optional(),
    isWorkplace: z.boolean().default(true),
    isPayrollEntity: z.boolean().default(false),
    payrollExportCode: text(64).optional(),
    parentLocationId: positiveId.optional(),
    /** The location's `Active` flag (the service's location field); sent as given when the location is created. */
    active: z.boolean().default(true),
    /**
     * Absent: one area named like the location (a location records time only with an area).
     * Empty: no area at all, for an Enterprise location used only as a top-level hierarchy node
     * ("needs no area"). An area is known by its name within the location: the areas of an
     * existing location that are not there yet are added, the others are reused.
     */
    areas: z.array(area).max(50).optional(),
  })
  .superRefine((detail, ctx) => {
    // The service refuses a location that is neither a workplace nor a payroll entity.
    if (!detail.isWorkplace && !detail.isPayrollEntity) {
      ctx.addIssue({
        code: 'custom',
        path: ['isWorkplace'],
        message: 'at least one of isWorkplace and isPayrollEntity must be true',
      });
    }
    // Areas are remembered per location by name, so a repeated name would hide one of them.
    refuseRepeats(
      ctx,
      (detail.areas ?? []).map((entry) => entry.name),
      (index) => ['areas', index, 'name'],
      'area name listed more than once',
    );
  });

export type LocationCreatedDetail = z.output<typeof schema>;
export type LocationCreatedDetailInput = z.input<typeof schema>;
