import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { inboundContracts, outboundContracts } from '#functions/commons/contracts/registry.ts';
import { DEFAULT_INBOUND_SOURCE, DEFAULT_OUTBOUND_SOURCE } from '#functions/commons/contracts/source.ts';

describe('contract modules', () => {
  it('export the default source, their detail-type, version 1 and a zod schema for every inbound detail-type', () => {
    // Act
    const exported = Object.entries(inboundContracts).map(([key, contract]) => ({
      key,
      source: contract.source,
      detailType: contract.detailType,
      version: contract.version,
      isSchema: contract.schema instanceof z.ZodType,
    }));

    // Assess
    expect(exported).toHaveLength(7);
    for (const entry of exported) {
      expect(entry).toEqual({
        key: entry.key,
        source: DEFAULT_INBOUND_SOURCE,
        detailType: entry.key,
        version: '1',
        isSchema: true,
      });
    }
  });

  it('export the default source, their detail-type, version 1 and a zod schema for every outbound detail-type', () => {
    // Act
    const exported = Object.entries(outboundContracts).map(([key, contract]) => ({
      key,
      source: contract.source,
      detailType: contract.detailType,
      version: contract.version,
      isSchema: contract.schema instanceof z.ZodType,
    }));

    // Assess
    expect(exported).toHaveLength(10);
    for (const entry of exported) {
      expect(entry).toEqual({
        key: entry.key,
        source: DEFAULT_OUTBOUND_SOURCE,
        detailType: entry.key,
        version: '1',
        isSchema: true,
      });
    }
  });
});
