import { permissionFor, roleMay, ROLES } from './roles';

describe('who may do what on /admin', () => {
  it('reads need read, a reveal needs reveal, whatever the path', () => {
    expect(permissionFor('GET', '/purchases/abc', false)).toBe('read');
    expect(permissionFor('GET', '/reports/daily', true)).toBe('reveal');
    expect(ROLES.every((role) => roleMay(role, 'read'))).toBe(true);
    expect(roleMay('viewer', 'reveal')).toBe(false);
  });

  it.each([
    ['POST', '/purchases/p1/resend-sms', 'care'],
    ['POST', '/purchases/p1/resolve', 'care'],
    ['POST', '/cases/7/close', 'care'],
    ['DELETE', '/notice', 'care'],
    ['POST', '/agents/26771234567/adjustments', 'finance'],
    ['POST', '/agents/26771234567/credits/', 'finance'],
    ['POST', '/agents/deposits/4/approve', 'finance'],
    ['POST', '/payments/unmatched/n1/resolve', 'finance'],
    ['POST', '/payments/unknown/u1/review', 'finance'],
    ['POST', '/reconciliation/mismatches/3/assign', 'finance'],
    ['POST', '/reconciliation/mismatches/3/note', 'finance'],
    ['POST', '/reconciliation/mismatches/3/close', 'finance'],
    ['POST', '/agents/26771234567/reset-pin', 'agents'],
    ['POST', '/agents/registrations/2/reject', 'agents'],
    ['POST', '/agents', 'agents'],
    // Not listed: only an admin.
    ['POST', '/purchases/p1/forget', 'admin'],
    ['PUT', '/agents/26771234567', 'admin'],
    ['POST', '/reconciliation/statements', 'admin'],
  ])('%s %s needs %s', (method, path, needs) => {
    expect(permissionFor(method, path, false)).toBe(needs);
  });

  it('care cannot adjust a float; finance cannot resolve a purchase; a viewer changes nothing', () => {
    expect(roleMay('care', 'finance')).toBe(false);
    expect(roleMay('finance', 'care')).toBe(false);
    expect(['care', 'finance', 'agents', 'admin'].some((p) => roleMay('viewer', p as never))).toBe(false);
    expect(['care', 'finance', 'agents', 'admin'].every((p) => roleMay('admin', p as never))).toBe(true);
  });
});
