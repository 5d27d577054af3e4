import { wireTable } from './wire-table';

describe('wireTable', () => {
  const table = wireTable({ Success: 'delivered', Failed: 'failed', 101: 'sent' });

  it('answers its own entries, by string or number', () => {
    expect([table.get('Success'), table.get('Failed'), table.get(101), table.get('101')]).toEqual([
      'delivered',
      'failed',
      'sent',
      'sent',
    ]);
    expect(table.keys).toEqual(['101', 'Success', 'Failed']);
  });

  it("never answers Object.prototype's names, other types or unknown words", () => {
    for (const key of [
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'isPrototypeOf',
      'propertyIsEnumerable',
      'toLocaleString',
      '__defineGetter__',
      'success',
      '',
      null,
      undefined,
      ['Success'],
      { toString: () => 'Success' },
    ])
      expect(table.get(key)).toBeUndefined();
  });
});
