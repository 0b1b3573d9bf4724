import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { inboundContracts, outboundContracts } from '#functions/contracts/registry.ts';
import { DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE } from '#functions/contracts/source.ts';

// A loop rather than it.each: the rows hold zod schemas, which Vitest's title formatting hangs on.
const directions = [
  { direction: 'inbound', contracts: inboundContracts, count: 12, source: DEFAULT_INBOUND_SOURCE },
  { direction: 'outbound', contracts: outboundContracts, count: 19, source: DEFAULT_OUTBOUND_SOURCE },
];

describe('contract modules', () => {
  for (const { direction, contracts, count, source } of directions) {
    it(`export the default source, their detail-type, version 1 and a zod schema for every ${direction} detail-type`, () => {
      // Act
      const exported = Object.entries(contracts).map(([key, contract]) => ({
        key,
        source: contract.source,
        detailType: contract.detailType,
        version: contract.version,
        isSchema: contract.schema instanceof z.ZodType,
      }));

      // Assess
      expect(exported).toHaveLength(count);
      for (const entry of exported) {
        expect(entry).toEqual({
          key: entry.key,
          source,
          detailType: entry.key,
          version: '1',
          isSchema: true,
        });
      }
    });
  }
});
