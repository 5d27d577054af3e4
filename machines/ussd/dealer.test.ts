/**
 * A dealer's USSD screens (dealer-states.ts) over fixed data, live and restored from JSON before
 * every event: the menu item only for dealers, a transfer by list or typed number with the same
 * request key on a re-sent Send and a new one for a transfer started anew, a conflict said as such, a refusal for a float too low, Cancel after a Send or an Add that ran out of time
 * saying it may have been done, the retailers with their floats,
 * a disable (and no enable of one an operator disabled), and the commission on the float screen.
 */
import type { DialogueServices } from '../ussd-session.machine';
import type { RetailerItem } from './context';
import type { AddAnswer, AddCheckAnswer, TransferAnswer } from './dealer-actors';
import { DEALER_OPT } from './dealer-screens';
import { choose, deferred, Dialogue, keyOf, services, text, TIMEOUT, BACK } from './test-kit';

const BWP = (minor: number) => ({ currency: 'BWP', minor });
const SHOP: RetailerItem = {
  msisdn: '26771000002',
  name: 'Kgosi Shop',
  float: BWP(5000),
  todayCount: 1,
  todayValue: BWP(10000),
  status: 'active',
};
const KIOSK: RetailerItem = {
  msisdn: '26771000003',
  name: 'Tau Kiosk',
  float: BWP(0),
  todayCount: 0,
  todayValue: BWP(0),
  status: 'disabled',
};

function dealer(overrides: Partial<DialogueServices> = {}, isDealer = true) {
  const transfers: Array<{ to: string; minor: number; key: string }> = [];
  const supervised: Array<{ retailer: string; status: string }> = [];
  const { services: svc } = services({
    agentOf: async () => ({
      status: 'active',
      lockedUntil: null,
      accountId: null,
      ...(isDealer && { dealer: true }),
    }),
    verifyPin: async () => ({ status: 'ok', mustChangePin: false, pinVersion: 1 }),
    agentFloat: async () => ({ available: BWP(70000), held: BWP(0) }),
    agentCommission: async () => ({ today: BWP(150), month: BWP(450) }),
    dealerRetailers: async () => [SHOP, KIOSK],
    dealerTransfer: async (_msisdn, to, minor, key) => {
      transfers.push({ to, minor, key });
      return {
        status: 'transferred',
        amount: BWP(minor),
        dealerBalance: BWP(70000 - minor),
        retailerName: 'Kgosi Shop',
      };
    },
    superviseRetailer: async (_msisdn, retailer, status) => {
      supervised.push({ retailer, status });
      return 'done';
    },
    ...overrides,
  });
  return { svc, transfers, supervised };
}

async function atAgentMenu(svc: DialogueServices, roundTrip: boolean): Promise<Dialogue> {
  const d = new Dialogue(svc, roundTrip);
  await d.start();
  await d.send(text('5937'));
  expect(d.state).toBe('agentMenu');
  return d;
}

describe.each([false, true])('a dealer over USSD (restored from JSON: %s)', (roundTrip) => {
  it('"My retailers" is on the agent menu of a dealer only', async () => {
    const d = await atAgentMenu(dealer().svc, roundTrip);
    expect(d.options).toContain(DEALER_OPT.network);
    const other = await atAgentMenu(dealer({}, false).svc, roundTrip);
    expect(other.options).not.toContain(DEALER_OPT.network);
  });

  it('transfers to a retailer chosen from the list: amount, confirmation, sent with the new float', async () => {
    const { svc, transfers } = dealer();
    const d = await atAgentMenu(svc, roundTrip);
    await d.send(choose(DEALER_OPT.network));
    expect(d.state).toBe('dealerMenu');
    await d.send(choose(DEALER_OPT.transfer));
    expect(d.state).toBe('transferTo');
    expect(d.options).toEqual([DEALER_OPT.retailer(SHOP.msisdn), DEALER_OPT.retailer(KIOSK.msisdn)]);
    await d.send(choose(DEALER_OPT.retailer(SHOP.msisdn)));
    expect(d.state).toBe('transferAmount');
    await d.send(text('300'));
    expect(d.state).toBe('transferConfirm');
    expect(d.screen.keep).toEqual([
      { key: 'dealer.transfer.confirm', params: { amount: 'BWP 300.00', to: 'Kgosi Shop 267****0002' } },
    ]);
    await d.send(choose(DEALER_OPT.send));
    expect(d.screen.final).toBe(true);
    expect(d.screen.body).toEqual([
      {
        key: 'dealer.transfer.sent',
        params: { amount: 'BWP 300.00', to: 'Kgosi Shop', balance: 'BWP 400.00' },
      },
    ]);
    expect(transfers).toEqual([
      { to: SHOP.msisdn, minor: 30000, key: expect.stringMatching(/:transfer:1:26771000002:30000$/) },
    ]);
  });

  it('a dealer with no retailer yet: both lists say so and offer Add retailer', async () => {
    const { svc, transfers } = dealer({ dealerRetailers: async () => [] });
    const d = await atAgentMenu(svc, roundTrip);
    await d.send(choose(DEALER_OPT.network));
    for (const list of [DEALER_OPT.retailers, DEALER_OPT.transfer]) {
      await d.send(choose(list));
      expect(d.state).toBe(list === DEALER_OPT.transfer ? 'transferTo' : 'retailers');
      expect(d.screen.body).toEqual([{ key: 'dealer.retailers.none' }]);
      expect(d.options).toEqual([DEALER_OPT.add]);
      await d.send(BACK);
      expect(d.state).toBe('dealerMenu');
    }
    await d.send(choose(DEALER_OPT.retailers));
    await d.send(choose(DEALER_OPT.add));
    expect(d.state).toBe('addRetailerNumber');
    expect(transfers).toEqual([]);
  });

  it('a typed number of one of its retailers is taken; any other is refused, nothing sent', async () => {
    const { svc, transfers } = dealer();
    const d = await atAgentMenu(svc, roundTrip);
    await d.send(choose(DEALER_OPT.network));
    await d.send(choose(DEALER_OPT.transfer));
    await d.send(text('26771999999'));
    expect(d.state).toBe('transferTo');
    expect(keyOf(d.screen.body[0])).toBe('dealer.notYourRetailer');
    await d.send(text('71000002'));
    expect(d.state).toBe('transferAmount');
    await d.send(text('abc'));
    expect(d.state).toBe('transferAmount');
    await d.send(text('50'));
    await d.send(choose(DEALER_OPT.cancel));
    expect(d.state).toBe('dealerMenu');
    expect(keyOf(d.screen.body[0])).toBe('dealer.transfer.cancelled');
    expect(transfers).toEqual([]);
  });

  it('a float too low goes back to the amount naming the float; a timeout offers Send again with the same key', async () => {
    const answers: TransferAnswer[] = [{ status: 'insufficient', available: BWP(2000) }];
    const hang = deferred<TransferAnswer>();
    const keys: string[] = [];
    let n = 0;
    const { svc } = dealer({
      dealerTransfer: async (_m, to, minor, key) => {
        keys.push(key);
        n += 1;
        if (n === 1) return answers[0];
        if (n === 2) return hang.promise;
        return { status: 'transferred', amount: BWP(minor), dealerBalance: BWP(0), retailerName: to };
      },
    });
    const d = await atAgentMenu(svc, roundTrip);
    await d.send(choose(DEALER_OPT.network));
    await d.send(choose(DEALER_OPT.transfer));
    await d.send(choose(DEALER_OPT.retailer(SHOP.msisdn)));
    await d.send(text('300'));
    await d.send(choose(DEALER_OPT.send));
    expect(d.state).toBe('transferAmount');
    expect(d.screen.body[0]).toEqual({
      key: 'dealer.transfer.insufficient',
      params: { available: 'BWP 20.00' },
    });
    await d.send(text('20'));
    d.sendNoWait(choose(DEALER_OPT.send));
    d.sendNoWait(TIMEOUT);
    await d.settle();
    expect(d.state).toBe('transferConfirm');
    await d.send(choose(DEALER_OPT.send));
    expect(d.screen.final).toBe(true);
    // The Send after the timeout asks with the key of the one that may have been applied.
    expect(keys[2]).toBe(keys[1]);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it('a transfer started anew (same retailer, same amount) has a new key; Send after a timeout keeps its own', async () => {
    const keys: string[] = [];
    const hang = deferred<TransferAnswer>();
    const sent = (minor: number): TransferAnswer => ({
      status: 'transferred',
      amount: BWP(minor),
      dealerBalance: BWP(0),
      retailerName: 'Kgosi Shop',
    });
    const { svc } = dealer({
      dealerTransfer: async (_m, _to, minor, key) => {
        keys.push(key);
        return keys.length === 1 ? hang.promise : sent(minor);
      },
    });
    const d = await atAgentMenu(svc, roundTrip);
    const transfer300 = async () => {
      await d.send(choose(DEALER_OPT.transfer));
      await d.send(choose(DEALER_OPT.retailer(SHOP.msisdn)));
      await d.send(text('300'));
      expect(d.state).toBe('transferConfirm');
    };
    await d.send(choose(DEALER_OPT.network));
    await transfer300();
    // The first Send runs out of time (it may be applied): the confirmation again.
    d.sendNoWait(choose(DEALER_OPT.send));
    d.sendNoWait(TIMEOUT);
    await d.settle();
    hang.resolve(sent(30000));
    expect(d.state).toBe('transferConfirm');
    // The dealer leaves it, looks at the list, and starts a new transfer of the same amount.
    await d.send(choose(DEALER_OPT.cancel));
    await d.send(choose(DEALER_OPT.retailers));
    await d.send(BACK);
    expect(d.state).toBe('dealerMenu');
    await transfer300();
    await d.send(choose(DEALER_OPT.send));
    expect(d.screen.final).toBe(true);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/:transfer:1:26771000002:30000$/);
    expect(keys[1]).toMatch(/:transfer:2:26771000002:30000$/);

    // Within one transfer, Send after a timeout (or the same retailer and amount chosen again) asks with its key.
    const again: string[] = [];
    const late = deferred<TransferAnswer>();
    const other = dealer({
      dealerTransfer: async (_m, _to, minor, key) => {
        again.push(key);
        return again.length === 1 ? late.promise : sent(minor);
      },
    });
    const e = await atAgentMenu(other.svc, roundTrip);
    await e.send(choose(DEALER_OPT.network));
    await e.send(choose(DEALER_OPT.transfer));
    await e.send(choose(DEALER_OPT.retailer(SHOP.msisdn)));
    await e.send(text('300'));
    e.sendNoWait(choose(DEALER_OPT.send));
    e.sendNoWait(TIMEOUT);
    await e.settle();
    late.resolve(sent(30000));
    await e.send(BACK);
    expect(e.state).toBe('transferAmount');
    await e.send(text('300'));
    await e.send(choose(DEALER_OPT.send));
    expect(e.screen.final).toBe(true);
    expect(again).toHaveLength(2);
    expect(again[1]).toBe(again[0]);
  });

  it('Cancel after a Send that ran out of time says the transfer may have been made; before any Send, nothing was sent', async () => {
    const hang = deferred<TransferAnswer>();
    const { svc } = dealer({ dealerTransfer: async () => hang.promise });
    const d = await atAgentMenu(svc, roundTrip);
    const toConfirm = async () => {
      await d.send(choose(DEALER_OPT.transfer));
      await d.send(choose(DEALER_OPT.retailer(SHOP.msisdn)));
      await d.send(text('300'));
      expect(d.state).toBe('transferConfirm');
    };
    await d.send(choose(DEALER_OPT.network));
    await toConfirm();
    d.sendNoWait(choose(DEALER_OPT.send));
    d.sendNoWait(TIMEOUT);
    await d.settle();
    expect(d.state).toBe('transferConfirm');
    expect(keyOf(d.screen.body[0])).toBe('error.timeout');
    // Back to the amount and on to the confirmation: still the draft whose Send may have gone through.
    await d.send(BACK);
    await d.send(text('200'));
    await d.send(choose(DEALER_OPT.cancel));
    expect(d.state).toBe('dealerMenu');
    expect(keyOf(d.screen.body[0])).toBe('dealer.transfer.cancelledMaybeSent');
    // A transfer started anew and cancelled before any Send: nothing was sent.
    await toConfirm();
    await d.send(choose(DEALER_OPT.cancel));
    expect(keyOf(d.screen.body[0])).toBe('dealer.transfer.cancelled');
  });

  it('a reference taken by another transfer (conflict): the dealer menu says so, nothing moved', async () => {
    const keys: string[] = [];
    const { svc } = dealer({
      dealerTransfer: async (_m, _to, minor, key) => {
        keys.push(key);
        return keys.length === 1
          ? { status: 'conflict' }
          : { status: 'transferred', amount: BWP(minor), dealerBalance: BWP(0), retailerName: 'Kgosi Shop' };
      },
    });
    const d = await atAgentMenu(svc, roundTrip);
    await d.send(choose(DEALER_OPT.network));
    await d.send(choose(DEALER_OPT.transfer));
    await d.send(choose(DEALER_OPT.retailer(SHOP.msisdn)));
    await d.send(text('300'));
    await d.send(choose(DEALER_OPT.send));
    expect(d.state).toBe('dealerMenu');
    expect(d.screen.body[0]).toEqual({ key: 'dealer.transfer.conflict' });
    expect(d.screen.final).toBeFalsy();
    // Started again: a new reference, sent.
    await d.send(choose(DEALER_OPT.transfer));
    await d.send(choose(DEALER_OPT.retailer(SHOP.msisdn)));
    await d.send(text('300'));
    await d.send(choose(DEALER_OPT.send));
    expect(keyOf(d.screen.body[0])).toBe('dealer.transfer.sent');
    expect(keys[1]).not.toBe(keys[0]);
  });

  it('lists the retailers with floats and sales; disables an active one; no Enable for one an operator disabled', async () => {
    const { svc, supervised } = dealer();
    const d = await atAgentMenu(svc, roundTrip);
    await d.send(choose(DEALER_OPT.network));
    await d.send(choose(DEALER_OPT.retailers));
    expect(d.state).toBe('retailers');
    expect(d.screen.options?.map((o) => o.label)).toEqual([
      {
        key: 'dealer.retailers.item',
        params: expect.objectContaining({
          name: 'Kgosi Shop',
          float: 'BWP 50.00',
          count: 1,
          value: 'BWP 100.00',
        }),
      },
      {
        key: 'dealer.retailers.itemStatus',
        params: expect.objectContaining({ name: 'Tau Kiosk', status: { key: 'dealer.status.disabled' } }),
      },
    ]);
    await d.send(choose(DEALER_OPT.retailer(KIOSK.msisdn)));
    expect(d.state).toBe('retailer');
    expect(d.options).toEqual([]);
    await d.send(BACK);
    await d.send(choose(DEALER_OPT.retailer(SHOP.msisdn)));
    expect(d.options).toEqual([DEALER_OPT.disable]);
    await d.send(choose(DEALER_OPT.disable));
    expect(d.state).toBe('retailers');
    expect(keyOf(d.screen.body[0])).toBe('dealer.retailer.disabled');
    expect(supervised).toEqual([{ retailer: SHOP.msisdn, status: 'disabled' }]);
  });

  it('the float screen names the commission earned today and this month', async () => {
    const d = await atAgentMenu(dealer().svc, roundTrip);
    await d.send(choose('float'));
    expect(d.state).toBe('agentFloat');
    expect(d.screen.body).toContainEqual({
      key: 'agent.commission',
      params: { today: 'BWP 1.50', month: 'BWP 4.50' },
    });
  });

  describe('Add retailer', () => {
    function adding(check: AddCheckAnswer, answer: AddAnswer) {
      const checked: string[] = [];
      const asked: Array<{ number: string; name: string; key: string }> = [];
      const { svc } = dealer({
        dealerCheckRetailer: async (_msisdn, number) => {
          checked.push(number);
          return check;
        },
        dealerAddRetailer: async (_msisdn, number, name, key) => {
          asked.push({ number, name, key });
          return answer;
        },
      });
      return { svc, checked, asked };
    }
    const toAdd = async (svc: DialogueServices) => {
      const d = await atAgentMenu(svc, roundTrip);
      await d.send(choose(DEALER_OPT.network));
      expect(d.options).toContain(DEALER_OPT.add);
      await d.send(choose(DEALER_OPT.add));
      expect(d.state).toBe('addRetailerNumber');
      return d;
    };
    /** The retailer's number and name typed in: the confirmation screen. */
    const typeRetailer = async (d: Dialogue) => {
      await d.send(text('71000009'));
      await d.send(text('Mpho Shop'));
    };

    it('number (normalised), name, confirmation; pending for the operator; a re-sent Add asks with the same key', async () => {
      const { svc, checked, asked } = adding(
        { status: 'ok', msisdn: '26771000009' },
        { status: 'pending', name: 'Mpho Shop' },
      );
      const d = await toAdd(svc);
      await d.send(text('abc'));
      expect(d.state).toBe('addRetailerNumber');
      expect(keyOf(d.screen.body[0])).toBe('dealer.add.invalidNumber');
      expect(checked).toEqual([]);
      await d.send(text('71000009'));
      expect(checked).toEqual(['26771000009']);
      expect(d.state).toBe('addRetailerName');
      await d.send(text('   '));
      expect(keyOf(d.screen.body[0])).toBe('dealer.add.invalidName');
      await d.send(text('x'.repeat(31)));
      expect(d.state).toBe('addRetailerName');
      await d.send(text('  Mpho   Shop '));
      expect(d.state).toBe('addRetailerConfirm');
      expect(d.screen.keep).toEqual([
        {
          key: 'dealer.add.confirm',
          params: { name: 'Mpho Shop', number: expect.stringMatching(/^267\*+0009$/) },
        },
      ]);
      expect(d.options).toEqual([DEALER_OPT.add, DEALER_OPT.cancel]);
      await d.send(choose(DEALER_OPT.add));
      expect(d.screen.final).toBe(true);
      expect(d.screen.body[0]).toEqual({ key: 'dealer.add.pending', params: { name: 'Mpho Shop' } });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ number: '26771000009', name: 'Mpho Shop' });
      expect(asked[0].key).toMatch(/:add:26771000009$/);
    });

    it('registered at once (direct) says so; Cancel adds nothing', async () => {
      const { svc, asked } = adding(
        { status: 'ok', msisdn: '26771000009' },
        { status: 'registered', name: 'Mpho Shop' },
      );
      const d = await toAdd(svc);
      await typeRetailer(d);
      await d.send(choose(DEALER_OPT.cancel));
      expect(d.state).toBe('dealerMenu');
      expect(keyOf(d.screen.body[0])).toBe('dealer.add.cancelled');
      expect(asked).toEqual([]);
      await d.send(choose(DEALER_OPT.add));
      await typeRetailer(d);
      await d.send(choose(DEALER_OPT.add));
      expect(d.screen.body[0]).toEqual({ key: 'dealer.add.registered', params: { name: 'Mpho Shop' } });
      expect(asked).toHaveLength(1);
    });

    it.each(['self', 'agent', 'blocked', 'pending', 'dealer_disabled'] as const)(
      'a number refused (%s) re-prompts for the number with its reason',
      async (reason) => {
        const { svc, asked } = adding({ status: reason }, { status: 'refused', reason });
        const d = await toAdd(svc);
        await d.send(text('71000009'));
        expect(d.state).toBe('addRetailerNumber');
        expect(keyOf(d.screen.body[0])).toBe(`dealer.add.refused.${reason}`);
        expect(asked).toEqual([]);
      },
    );

    it('Cancel after an Add that ran out of time says the retailer may have been added', async () => {
      const hang = deferred<AddAnswer>();
      const asked: string[] = [];
      const { svc } = dealer({
        dealerCheckRetailer: async () => ({ status: 'ok', msisdn: '26771000009' }),
        dealerAddRetailer: async (_msisdn, _number, _name, key) => {
          asked.push(key);
          return hang.promise;
        },
      });
      const d = await toAdd(svc);
      await typeRetailer(d);
      d.sendNoWait(choose(DEALER_OPT.add));
      d.sendNoWait(TIMEOUT);
      await d.settle();
      expect(d.state).toBe('addRetailerConfirm');
      expect(asked).toHaveLength(1);
      await d.send(choose(DEALER_OPT.cancel));
      expect(d.state).toBe('dealerMenu');
      expect(keyOf(d.screen.body[0])).toBe('dealer.add.cancelledMaybeAdded');
      // Add retailer again, cancelled before Add: nothing was added.
      await d.send(choose(DEALER_OPT.add));
      await typeRetailer(d);
      await d.send(choose(DEALER_OPT.cancel));
      expect(keyOf(d.screen.body[0])).toBe('dealer.add.cancelled');
    });

    it('a refusal at the request (the number became an agent meanwhile) re-prompts for the number', async () => {
      const { svc } = adding({ status: 'ok', msisdn: '26771000009' }, { status: 'refused', reason: 'agent' });
      const d = await toAdd(svc);
      await typeRetailer(d);
      await d.send(choose(DEALER_OPT.add));
      expect(d.state).toBe('addRetailerNumber');
      expect(keyOf(d.screen.body[0])).toBe('dealer.add.refused.agent');
    });
  });
});
