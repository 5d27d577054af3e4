import type { AddressInfo } from 'node:net';
import * as smpp from 'smpp';
import { SmppSender, type DeliveryReceipt, type SmppConfig } from './driver';
import { until } from '../../../test/support/wait';

/** A small SMSC: checks the bind, records submit_sm, answers with a configurable status. */
class TestSmsc {
  server!: smpp.Server;
  port = 0;
  readonly submits: smpp.PDU[] = [];
  readonly binds: { systemId?: string; ok: boolean }[] = [];
  enquireLinks = 0;
  submitStatus = 0;
  sessions: smpp.Session[] = [];
  private nextId = 1;

  async start(port = 0): Promise<void> {
    this.server = smpp.createServer((session) => {
      this.sessions.push(session);
      session.on('error', () => undefined);
      session.on('bind_transceiver', (pdu) => {
        const ok = pdu.system_id === 'gateway' && pdu.password === 'secret1';
        this.binds.push({ systemId: pdu.system_id, ok });
        session.send(
          pdu.response(ok ? { system_id: 'TESTSMSC' } : { command_status: smpp.errors.ESME_RBINDFAIL }),
        );
        if (!ok) session.close();
      });
      session.on('submit_sm', (pdu) => {
        this.submits.push(pdu);
        const status = this.submitStatus;
        session.send(
          pdu.response(status ? { command_status: status } : { message_id: `MSG${this.nextId++}` }),
        );
      });
      session.on('enquire_link', (pdu) => {
        this.enquireLinks += 1;
        session.send(pdu.response());
      });
      session.on('unbind', (pdu) => {
        session.send(pdu.response());
        session.close();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stop accepting and drop every bound client, like an SMSC restart. */
  async stop(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    this.sessions = [];
    await new Promise((resolve) => this.server.close(resolve));
  }
}

let smsc: TestSmsc;
const senders: SmppSender[] = [];

function makeSender(overrides: Partial<SmppConfig> = {}): SmppSender {
  const sender = new SmppSender({
    host: '127.0.0.1',
    port: smsc.port,
    systemId: 'gateway',
    password: 'secret1',
    sourceAddr: 'POWER',
    enquireLinkMs: 60_000,
    reconnectMinMs: 20,
    reconnectMaxMs: 100,
    ...overrides,
  });
  senders.push(sender);
  return sender;
}

beforeEach(async () => {
  smsc = new TestSmsc();
  await smsc.start();
});

afterEach(async () => {
  for (const sender of senders.splice(0)) await sender.close();
  await smsc.stop();
});

const sms = { id: 'n1', to: '26771234567', message: 'Token 1234 5678 Paid €10 {ok}', purchaseId: 'p1' };
const textOf = (pdu: smpp.PDU) => String(pdu.short_message?.message);

describe('SMPP driver', () => {
  it('binds and submits a short GSM-7 message with a receipt requested', async () => {
    const sender = makeSender();
    await until('bind', () => sender.isBound);
    expect(smsc.binds).toEqual([{ systemId: 'gateway', ok: true }]);
    expect(await sender.send(sms)).toEqual({ status: 'sent', providerMessageIds: ['MSG1'] });
    expect(smsc.submits).toHaveLength(1);
    expect(smsc.submits[0]).toMatchObject({
      source_addr: 'POWER',
      source_addr_ton: 5,
      destination_addr: '26771234567',
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      registered_delivery: 1,
      data_coding: 0,
      esm_class: 0,
    });
    expect(textOf(smsc.submits[0])).toBe(sms.message);
  });

  it('fails the bind with a wrong password and answers retry', async () => {
    const sender = makeSender({ password: 'wrong' });
    await until('bind refusal', () => sender.lastFailure === 'bind refused: ESME_RBINDFAIL');
    expect(smsc.binds[0]).toEqual({ systemId: 'gateway', ok: false });
    expect(sender.isBound).toBe(false);
    expect(await sender.send(sms)).toEqual({
      status: 'retry',
      reason: expect.stringMatching(/^smpp not bound/),
    });
    expect(smsc.submits).toHaveLength(0);
  });

  it('splits a long message into parts with one concatenation UDH', async () => {
    const sender = makeSender();
    await until('bind', () => sender.isBound);
    const message = 'Your electricity token: ' + '1234 5678 9012 3456 7890 '.repeat(12);
    const outcome = await sender.send({ ...sms, message });
    expect(outcome).toEqual({ status: 'sent', providerMessageIds: ['MSG1', 'MSG2', 'MSG3'] });
    expect(smsc.submits).toHaveLength(3);
    const reference = smsc.submits[0].short_message?.udh?.[0][2];
    smsc.submits.forEach((pdu, i) => {
      expect(pdu.esm_class).toBe(0x40);
      expect(pdu.data_coding).toBe(0);
      expect(pdu.short_message?.udh).toEqual([Buffer.from([0x00, 0x03, reference ?? -1, 3, i + 1])]);
    });
    expect(smsc.submits.map(textOf).join('')).toBe(message);
    expect(smsc.submits.map((p) => textOf(p).length)).toEqual([153, 153, message.length - 306]);
  });

  it('sends UCS-2 text with data_coding 8, long ones in 67-unit parts', async () => {
    const sender = makeSender();
    await until('bind', () => sender.isBound);
    expect((await sender.send({ ...sms, id: 'u1', message: 'Привет 👍' })).status).toBe('sent');
    expect(smsc.submits[0].data_coding).toBe(8);
    expect(textOf(smsc.submits[0])).toBe('Привет 👍');
    const long = 'ж'.repeat(100);
    expect((await sender.send({ ...sms, id: 'u2', message: long })).status).toBe('sent');
    expect(smsc.submits.slice(1).map(textOf)).toEqual(['ж'.repeat(67), 'ж'.repeat(33)]);
    expect(smsc.submits.slice(1).every((p) => p.data_coding === 8 && p.esm_class === 0x40)).toBe(true);
  });

  test.each([
    [0x58, 'retry', 'smpp submit_sm refused: ESME_RTHROTTLED'],
    [0x14, 'retry', 'smpp submit_sm refused: ESME_RMSGQFUL'],
    [0x08, 'retry', 'smpp submit_sm refused: ESME_RSYSERR'],
    [0x0b, 'rejected', 'smpp submit_sm refused: ESME_RINVDSTADR'],
    [0x50, 'rejected', 'smpp submit_sm refused: ESME_RINVDSTTON'],
    [0x77, 'retry', 'smpp submit_sm refused: 0x77'],
  ])('submit_sm_resp status 0x%s → %s', async (status, verdict, reason) => {
    const sender = makeSender();
    await until('bind', () => sender.isBound);
    smsc.submitStatus = status;
    expect(await sender.send(sms)).toEqual({ status: verdict, reason });
  });

  it('passes delivery receipts to onReceipt and acknowledges them', async () => {
    const receipts: DeliveryReceipt[] = [];
    const sender = makeSender({ onReceipt: (r) => receipts.push(r) });
    await until('bind', () => sender.isBound);
    await sender.send(sms);
    const acks: smpp.PDU[] = [];
    smsc.sessions[0].deliver_sm(
      {
        source_addr: '26771234567',
        destination_addr: 'POWER',
        esm_class: 0x04,
        short_message:
          'id:MSG1 sub:001 dlvr:001 submit date:2501020304 done date:2501020305 stat:DELIVRD err:000 text:Token 1234',
      },
      (resp) => acks.push(resp),
    );
    smsc.sessions[0].deliver_sm(
      {
        source_addr: '26771234567',
        esm_class: 0x04,
        short_message:
          'id:MSG9 sub:001 dlvr:000 submit date:2501020304 done date:2501020305 stat:UNDELIV err:034 text:',
        receipted_message_id: 'MSG9',
        message_state: 5,
      },
      (resp) => acks.push(resp),
    );
    await until('receipts', () => receipts.length === 2 && acks.length === 2);
    expect(receipts).toEqual([
      { messageId: 'MSG1', state: 'DELIVRD', delivered: true, to: '26771234567' },
      { messageId: 'MSG9', state: 'UNDELIV', delivered: false, error: '034', to: '26771234567' },
    ]);
    expect(acks.map((a) => [a.command, a.command_status])).toEqual([
      ['deliver_sm_resp', 0],
      ['deliver_sm_resp', 0],
    ]);
  });

  it('keeps the link alive with enquire_link', async () => {
    const sender = makeSender({ enquireLinkMs: 20 });
    await until('bind', () => sender.isBound);
    await until('two enquire_link', () => smsc.enquireLinks >= 2);
    expect(sender.isBound).toBe(true);
  });

  it('answers retry while the SMSC is down, then reconnects and delivers', async () => {
    const sender = makeSender();
    await until('bind', () => sender.isBound);
    expect((await sender.send({ ...sms, id: 'before' })).status).toBe('sent');
    const port = smsc.port;
    await smsc.stop();
    await until('disconnect', () => !sender.isBound);
    expect(await sender.send({ ...sms, id: 'during' })).toEqual({
      status: 'retry',
      reason: expect.stringMatching(/^smpp not bound/),
    });
    smsc = new TestSmsc();
    await smsc.start(port);
    await until('reconnect', () => sender.isBound);
    expect(await sender.send({ ...sms, id: 'after' })).toEqual({
      status: 'sent',
      providerMessageIds: ['MSG1'],
    });
    expect(smsc.submits.map(textOf)).toEqual([sms.message]);
  });

  it('answers retry, never throws, when nothing listens', async () => {
    const port = smsc.port;
    await smsc.stop();
    const sender = makeSender({ port });
    await until('connection failure', () => sender.lastFailure !== undefined);
    expect(await sender.send(sms)).toEqual({
      status: 'retry',
      reason: expect.stringContaining('ECONNREFUSED'),
    });
    smsc = new TestSmsc();
    await smsc.start();
  });
});
