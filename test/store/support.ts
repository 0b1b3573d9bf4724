import { afterAll, beforeAll } from 'vitest';
import {
  createTestStore,
  type DynaliteServer,
  startDynalite,
  type TestStore,
} from '#test/support/dynalite.ts';

/**
 * One dynalite server and one fresh table for the calling test file, started before its tests
 * and closed after them. The returned store is a view that reads the live one on each access:
 * the table only exists once beforeAll has run, yet test bodies keep passing `store` around as
 * the Store itself.
 */
export function useTestStore(): TestStore {
  let dynamo: DynaliteServer | undefined;
  let live: TestStore | undefined;

  beforeAll(async () => {
    dynamo = await startDynalite();
    live = await createTestStore(dynamo.endpoint);
  });

  afterAll(async () => {
    live?.client.destroy();
    await dynamo?.close();
  });

  const current = (): TestStore => {
    if (!live) throw new Error('the test store is only available inside tests and hooks');
    return live;
  };
  return {
    get doc() {
      return current().doc;
    },
    get tableName() {
      return current().tableName;
    },
    get client() {
      return current().client;
    },
  };
}
