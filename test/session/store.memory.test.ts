import { MemorySessionStore, type SessionRecord } from '../../src/ussd/engine/store';
import { record, ref, sessionStoreContract } from './store.contract';

sessionStoreContract('memory', async () => new MemorySessionStore());

describe('a dialogue saved as over', () => {
  it('is offered again once its record expired and a new dialogue took its session id', async () => {
    let clock = Date.now();
    const store = new MemorySessionStore(() => clock);
    const put = async (rec: SessionRecord, ttlS: number) => {
      const lock = await store.loadAndLock(ref, 5000);
      if (lock.kind !== 'locked') throw new Error('expected lock');
      await store.saveAndUnlock(ref, lock.token, rec, ttlS);
    };
    await put(record({ status: 'final' }), 1);
    clock += 2000;
    // An aggregator that recycles session ids: a new dialogue on the same id, dropped part-way.
    await put(record({ updatedAt: clock }), 60);
    expect(
      await store.takeResumable(ref, { minUpdatedAt: clock - 1000, machineVersions: ['v1'] }),
    ).toMatchObject({
      status: 'active',
    });
  });
});
