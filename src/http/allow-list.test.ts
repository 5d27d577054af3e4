import { AllowList } from './allow-list';

describe('AllowList', () => {
  const list = new AllowList(['10.0.0.5', '196.201.214.0/24', '2001:db8::/32']);

  it.each([
    ['10.0.0.5', true],
    ['::ffff:10.0.0.5', true],
    ['10.0.0.6', false],
    ['196.201.214.77', true],
    ['::ffff:196.201.214.1', true],
    ['196.201.215.1', false],
    ['2001:db8::1', true],
    ['2001:db9::1', false],
    ['not-an-ip', false],
    [undefined, false],
  ])('%s → %s', (ip, allowed) => {
    expect(list.allows(ip)).toBe(allowed);
  });

  it.each(['10.0.0', '10.0.0.0/33', '10.0.0.0/x', 'example.com', '10.0.0.0/8/1', '2001:db8::/129'])(
    'refuses %s, naming it',
    (entry) => {
      expect(() => new AllowList([entry])).toThrow(`"${entry}" is not an IP address or CIDR range`);
    },
  );
});
