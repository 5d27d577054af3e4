/**
 * The payment sandbox's HTTP surface: Daraja's and MoMo's routes over one ledger and one
 * table of test payers, and the operator extras under `/sandbox/` (no auth).
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'winston';
import { formatMoney } from '../../vas/money';
import { Callbacks } from './callbacks';
import { AccessTokens, WireError, type Context } from './context';
import {
  darajaFallback,
  darajaPaymentCallback,
  darajaReversalResult,
  darajaRoutes,
  isDarajaPath,
  type DarajaSettings,
} from './daraja';
import {
  defaultCompletes,
  FAULT_KINDS,
  FAULT_OPERATIONS,
  Faults,
  Timers,
  validFault,
  type FaultKind,
  type FaultOperation,
} from './faults';
import { Ledger, paymentRow, refundRow, type Payment, type Refund } from './ledger';
import {
  isMomoPath,
  momoFallback,
  momoPaymentStatus,
  momoRefundStatus,
  momoRoutes,
  type MomoSettings,
} from './momo';
import { behaviourOf, TEST_PAYERS } from './payers';
import { Payments, PromptAnswerError, promptText, type PayerTiming } from './payments';
import { localDayBounds } from '../../i18n/local-time';
import { parseDecimalAmount } from '../../vas/money';
import { momoPortalCsv, mpesaPortalCsv } from './statement';

export interface AppConfig extends PayerTiming {
  daraja: DarajaSettings;
  momo: MomoSettings;
  /** Seconds an access token lives. */
  tokenLifetimeS: number;
}

export interface PaymentSandboxApp {
  app: express.Express;
  timers: Timers;
}

/** The zone M-Pesa's organisation portal writes its times in. */
const MPESA_PORTAL_ZONE = 'Africa/Nairobi';

const sandboxError = (status: number, message: string): WireError =>
  new WireError(status, { error: message });

export function createPaymentSandboxApp(config: AppConfig, logger: Logger): PaymentSandboxApp {
  const app = express();
  const ledger = new Ledger();
  const faults = new Faults();
  const timers = new Timers();
  const callbacks = new Callbacks(faults, timers, logger);

  const announcePayment = async (p: Payment, times: number): Promise<void> => {
    if (!p.callbackUrl) return;
    const body = p.wire === 'daraja' ? darajaPaymentCallback(p) : momoPaymentStatus(p);
    const method = p.wire === 'daraja' ? 'POST' : config.momo.callbackMethod;
    for (let i = 0; i < times; i += 1) await callbacks.send('payment', p.id, p.callbackUrl, method, body);
  };
  const announceRefund = (r: Refund): void => {
    if (!r.callbackUrl) return;
    const original = r.paymentId ? ledger.payment(r.paymentId) : undefined;
    const body = r.wire === 'daraja' ? darajaReversalResult(r, original) : momoRefundStatus(r, original);
    const method = r.wire === 'daraja' ? 'POST' : config.momo.callbackMethod;
    void callbacks.send('refund', r.id, r.callbackUrl, method, body);
  };
  const payments = new Payments(ledger, timers, config, {
    payment: (p, times) => void announcePayment(p, times),
    refund: announceRefund,
  });
  const ctx: Context = {
    ledger,
    payments,
    callbacks,
    faults,
    timers,
    tokens: new AccessTokens(config.tokenLifetimeS),
  };

  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = Date.now();
    // Paths only: MoMo's carry references, never a number or a secret.
    res.on('finish', () =>
      logger.info('payment sandbox request', {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Date.now() - started,
      }),
    );
    next();
  });
  app.use(express.json({ limit: '64kb' }));

  darajaRoutes(app, ctx, config.daraja);
  momoRoutes(app, ctx, config.momo);

  // --- Operator extras ------------------------------------------------------------------
  app.get(
    '/sandbox/payers',
    (_req, res) =>
      void res.json({ payers: TEST_PAYERS, unlisted: config.unlisted, manual: payments.manualNumbers() }),
  );
  // A number that is not a test payer answers its prompts by hand (the simulator's phones).
  app.post('/sandbox/payers/manual', (req, res) => {
    const msisdn = (req.body as { msisdn?: unknown } | undefined)?.msisdn;
    if (typeof msisdn !== 'string' || !/^\d{6,15}$/.test(msisdn))
      throw sandboxError(400, 'msisdn must be 6 to 15 digits (E.164 without +)');
    const manual = payments.setManual(msisdn, true);
    // 200 for a test payer: its behaviour is scripted and stays.
    res
      .status(manual ? 201 : 200)
      .json({ msisdn, behaviour: manual ? 'manual' : behaviourOf(msisdn, config.unlisted) });
  });
  app.delete('/sandbox/payers/manual/:msisdn', (req, res) => {
    payments.setManual(String(req.params.msisdn), false);
    res.status(204).end();
  });
  app.get(
    '/sandbox/payments',
    (_req, res) => void res.json({ payments: ledger.allPayments().map(paymentRow) }),
  );
  // Money that moves after the provider said the payment failed (the gateway gave up on it).
  app.post('/sandbox/payments/:id/late-success', (req, res) => {
    try {
      res.json(paymentRow(payments.payLate(String(req.params.id))));
    } catch (err) {
      if (err instanceof PromptAnswerError) throw sandboxError(err.status, err.message);
      throw err;
    }
  });
  app.get('/sandbox/refunds', (_req, res) => void res.json({ refunds: ledger.allRefunds().map(refundRow) }));

  // --- Statements, and the faults only a statement shows --------------------------------
  /** `?date=YYYY-MM-DD&tz=` → the local day's [from, to); one line when either is not one. */
  const dayOf = (req: Request, defaultZone: string): { from: Date; to: Date; zone: string } => {
    const date = req.query.date;
    const zone = typeof req.query.tz === 'string' ? req.query.tz : defaultZone;
    if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date))
      throw sandboxError(400, 'date must be YYYY-MM-DD');
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
    } catch {
      throw sandboxError(400, `tz must be an IANA time zone, not ${zone}`);
    }
    return { ...localDayBounds(date, zone), zone };
  };
  // M-Pesa's organisation portal export of a day (East Africa Time's unless ?tz=). Its times are
  // always written in East Africa Time, as the real portal's are (and as the gateway reads them):
  // ?tz= chooses which day, not the clock the times are shown in.
  app.get('/sandbox/statements/mpesa', (req, res) => {
    const { from, to } = dayOf(req, MPESA_PORTAL_ZONE);
    res.type('text/csv').send(
      mpesaPortalCsv(ledger, {
        shortcode: config.daraja.shortcode,
        from,
        to,
        zone: MPESA_PORTAL_ZONE,
        now: new Date(),
      }),
    );
  });
  // MTN MoMo's partner portal export of a day (UTC unless ?tz=).
  app.get('/sandbox/statements/momo', (req, res) => {
    const day = dayOf(req, 'UTC');
    res.type('text/csv').send(momoPortalCsv(ledger, { ...day, merchant: config.momo.apiUserId }));
  });
  // The payer is charged a second time for a prompt already paid (no callback: only the statement shows it).
  app.post('/sandbox/payments/:id/charge-again', (req, res) => {
    const p = ledger.payment(String(req.params.id));
    if (!p) throw sandboxError(404, `no payment ${req.params.id}`);
    if (p.state !== 'successful')
      throw sandboxError(409, `payment ${p.id} is ${p.state}: only a paid one can be charged again`);
    const reference = p.wire === 'daraja' ? p.payee : (p.wireData.externalId ?? p.id);
    const entry = ledger.addDirect(
      { wire: p.wire, msisdn: p.msisdn, amount: p.amount, accountReference: reference, paymentId: p.id },
      new Date(),
    );
    res
      .status(201)
      .json({ ...entry, amount: formatMoney(entry.amount), completedAt: entry.completedAt.toISOString() });
  });
  // A payer pays the paybill (or MoMo account) directly, with no prompt of ours.
  app.post('/sandbox/direct-payments', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.wire !== 'daraja' && body.wire !== 'momo')
      throw sandboxError(400, 'wire must be daraja or momo');
    if (typeof body.msisdn !== 'string' || !/^\d{6,15}$/.test(body.msisdn))
      throw sandboxError(400, 'msisdn must be 6 to 15 digits (E.164 without +)');
    const amount = typeof body.amount === 'string' ? parseDecimalAmount(body.amount) : null;
    if (!amount?.ok)
      throw sandboxError(400, 'amount must be a positive decimal with at most two places, as text');
    const currency =
      body.wire === 'daraja'
        ? config.daraja.currency
        : typeof body.currency === 'string'
          ? body.currency
          : 'EUR';
    const reference =
      typeof body.accountReference === 'string' ? body.accountReference.slice(0, 20) : 'DIRECT';
    const entry = ledger.addDirect(
      {
        wire: body.wire,
        msisdn: body.msisdn,
        amount: { currency, minor: amount.minor },
        accountReference: reference,
        paymentId: null,
      },
      new Date(),
    );
    res
      .status(201)
      .json({ ...entry, amount: formatMoney(entry.amount), completedAt: entry.completedAt.toISOString() });
  });
  // The provider said this refund was made, but the money never went back: it leaves the statement.
  app.post('/sandbox/refunds/:id/drop', (req, res) => {
    const r = ledger.refund(String(req.params.id));
    if (!r) throw sandboxError(404, `no refund ${req.params.id}`);
    if (r.state !== 'successful')
      throw sandboxError(409, `refund ${r.id} is ${r.state}: only a completed one can be dropped`);
    r.dropped = true;
    res.json({ ...(refundRow(r) as object), dropped: true });
  });
  app.get('/sandbox/callbacks', (_req, res) => void res.json({ callbacks: callbacks.deliveries() }));
  app.get('/sandbox/prompts', (req, res) => {
    const msisdn = typeof req.query.msisdn === 'string' ? req.query.msisdn : undefined;
    res.json({
      prompts: payments.prompts(msisdn).map((p) => ({
        id: p.id,
        wire: p.wire,
        msisdn: p.msisdn,
        amount: formatMoney(p.amount),
        currency: p.amount.currency,
        payee: p.payee,
        text: promptText(formatMoney(p.amount), p.payee),
        createdAt: p.createdAt.toISOString(),
        expiresAt: p.expiresAt?.toISOString() ?? null,
      })),
    });
  });
  app.post('/sandbox/prompts/:id/:answer', (req, res) => {
    const answer = req.params.answer;
    if (answer !== 'approve' && answer !== 'decline') throw sandboxError(404, 'answer is approve or decline');
    try {
      res.json(paymentRow(payments.answer(String(req.params.id), answer === 'approve')));
    } catch (err) {
      if (err instanceof PromptAnswerError) throw sandboxError(err.status, err.message);
      throw err;
    }
  });
  app.get('/sandbox/faults', (_req, res) => void res.json(faults.list()));
  app.delete('/sandbox/faults', (_req, res) => {
    faults.clear();
    res.status(204).end();
  });
  app.post('/sandbox/faults', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const operation = body.operation as FaultOperation;
    const kind = body.fault as FaultKind;
    if (!FAULT_OPERATIONS.includes(operation)) {
      throw sandboxError(400, `operation must be one of ${FAULT_OPERATIONS.join(', ')}`);
    }
    if (!FAULT_KINDS.includes(kind) || !validFault(operation, kind)) {
      throw sandboxError(
        400,
        `fault must be one of ${FAULT_KINDS.join(', ')} (callback: drop or slow; not_found: refund_status only)`,
      );
    }
    const count = body.count ?? 1;
    const delayMs = body.delayMs ?? 2000;
    const completes = body.completes ?? defaultCompletes(kind);
    if (!Number.isSafeInteger(count) || (count as number) < 1)
      throw sandboxError(400, 'count must be an integer ≥ 1');
    if (!Number.isSafeInteger(delayMs) || (delayMs as number) < 0) {
      throw sandboxError(400, 'delayMs must be an integer ≥ 0');
    }
    if (typeof completes !== 'boolean') throw sandboxError(400, 'completes must be true or false');
    const fault = { fault: kind, remaining: count as number, delayMs: delayMs as number, completes };
    faults.arm(operation, fault);
    res.status(201).json({ operation, ...fault });
  });

  app.use((req: Request) => {
    throw isDarajaPath(req.path)
      ? darajaFallback(null)
      : isMomoPath(req.path)
        ? momoFallback(null)
        : sandboxError(404, `No endpoint at ${req.method} ${req.path}`);
  });

  app.use((raw: unknown, req: Request, res: Response, _next: NextFunction) => {
    let err: WireError;
    if (raw instanceof WireError) err = raw;
    else if (typeof (raw as { type?: unknown } | null)?.type === 'string') {
      // Body-parser failures, in the envelope of the wire that was called.
      err = isDarajaPath(req.path)
        ? darajaFallback(raw)
        : isMomoPath(req.path)
          ? momoFallback(raw)
          : sandboxError(400, 'Malformed JSON body');
    } else {
      logger.error('payment sandbox internal error', {
        error: raw instanceof Error ? raw.message : String(raw),
      });
      err = sandboxError(500, 'Unexpected server error');
    }
    if (res.headersSent || res.writableEnded || res.socket?.destroyed) return;
    res.status(err.status).json(err.body);
  });

  return { app, timers };
}
