// The operators' console: a page of plain DOM code over the admin API (/admin/...), with the
// session cookie and, on every change, the session's CSRF token. Every string reaches the page
// through textContent or an attribute (never innerHTML), so nothing an answer holds is markup.
// What a role may not do is not offered; the API refuses it anyway (src/operators/roles.ts).
'use strict';

const main = document.getElementById('main');
const flashBox = document.getElementById('flash');
let me = null; // { operator: {name, role, mustChangePassword}, permissions, csrfToken, timeZone }

class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** An element: `attrs` as attributes (on* as listeners), children as nodes or text. */
function h(tag, attrs, ...children) {
  const el = document.createElementNS(
    tag === 'svg' || attrs?.svg ? 'http://www.w3.org/2000/svg' : 'http://www.w3.org/1999/xhtml',
    tag,
  );
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (key === 'svg' || value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}
const s = (tag, attrs, ...children) => h(tag, { ...attrs, svg: true }, ...children);

function show(...nodes) {
  main.replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
  main.focus();
}

function flash(text, kind = 'ok') {
  flashBox.replaceChildren(h('p', { class: `flash ${kind}` }, text));
}

const may = (permission) => Boolean(me && me.permissions.includes(permission));

async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') {
    headers['content-type'] = 'application/json';
    if (me?.csrfToken) headers['x-csrf-token'] = me.csrfToken;
  }
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (res.status === 401 && path.startsWith('/admin')) {
    me = null;
    loginPage('Your session ended: log in again.');
    throw new ApiError(401, 'log in again', data);
  }
  if (!res.ok) throw new ApiError(res.status, data?.message ?? `the gateway answered ${res.status}`, data);
  return data;
}
const get = (path) => api('GET', path);
const post = (path, body = {}) => api('POST', path, body);

/** `BWP 100.00` from {currency, minor} (exact: integer arithmetic on the minor units). */
function money(m) {
  if (!m || typeof m.minor !== 'number') return '';
  return `${m.currency ?? ''} ${minorText(m.minor)}`.trim();
}
function minorText(minor) {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');

/** A definition list of the fields given (label, value), skipping empty values. */
function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => [h('dt', null, k), h('dd', null, v)]),
  );
}

/** A table: `columns` [label, value-of-row], one row per item; `caption` names it for readers. */
function table(caption, columns, rows, empty = 'Nothing here.') {
  if (!rows || rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      null,
      h('caption', null, caption),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          columns.map(([label]) => h('th', { scope: 'col' }, label)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((row) =>
          h(
            'tr',
            null,
            columns.map(([, cell]) => h('td', null, cell(row))),
          ),
        ),
      ),
    ),
  );
}

/** Anything as readable text: the generic view of a nested value. */
function detail(value) {
  return h('pre', { class: 'detail' }, JSON.stringify(value, null, 2));
}

function stateBadge(state) {
  return h('span', { class: `state state-${state}` }, state);
}

/** A form whose submit runs `act(values)`; errors are shown beside it, never lost. */
function actionForm({ label, fields = [], submit, act, danger }) {
  const error = h('p', { class: 'error', role: 'alert' });
  const inputs = fields.map((f) => {
    const id = `f-${Math.random().toString(36).slice(2)}`;
    const input =
      f.type === 'select'
        ? h(
            'select',
            { id, name: f.name, required: f.required },
            f.options.map((o) => h('option', { value: o }, o)),
          )
        : f.type === 'textarea'
          ? h('textarea', { id, name: f.name, required: f.required, rows: 2, maxlength: 500 })
          : h('input', {
              id,
              name: f.name,
              type: f.type ?? 'text',
              required: f.required,
              autocomplete: f.autocomplete ?? 'off',
              inputmode: f.inputmode,
              placeholder: f.placeholder,
            });
    return h('label', { for: id }, h('span', null, f.label), input);
  });
  const button = h('button', { type: 'submit', class: danger ? 'danger' : undefined }, submit);
  const form = h(
    'form',
    {
      class: 'action',
      'aria-label': label,
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = '';
        button.disabled = true;
        try {
          const values = Object.fromEntries(new FormData(form).entries());
          await act(values);
        } catch (e) {
          error.textContent = e.message;
        } finally {
          button.disabled = false;
        }
      },
    },
    h('fieldset', null, h('legend', null, label), inputs, button, error),
  );
  return form;
}

// ---- login and the one-time password -------------------------------------------------------

function loginPage(message) {
  document.getElementById('top').hidden = true;
  const error = h('p', { class: 'error', role: 'alert' }, message ?? '');
  const form = h(
    'form',
    {
      class: 'login',
      'aria-label': 'Log in',
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = '';
        const values = Object.fromEntries(new FormData(form).entries());
        try {
          me = await api('POST', '/console/api/login', values);
          me = await get('/console/api/me');
          flashBox.replaceChildren();
          if (me.operator.mustChangePassword) passwordPage(true);
          else start();
        } catch (e) {
          error.textContent = e.message;
        }
      },
    },
    h('h1', null, "Operators' console"),
    h(
      'label',
      { for: 'login-name' },
      h('span', null, 'Name'),
      h('input', {
        id: 'login-name',
        name: 'name',
        required: true,
        autocomplete: 'username',
        autocapitalize: 'none',
      }),
    ),
    h(
      'label',
      { for: 'login-password' },
      h('span', null, 'Password'),
      h('input', {
        id: 'login-password',
        name: 'password',
        type: 'password',
        required: true,
        autocomplete: 'current-password',
      }),
    ),
    h('button', { type: 'submit' }, 'Log in'),
    error,
  );
  show(form);
  document.getElementById('login-name').focus();
}

function passwordPage(first) {
  document.getElementById('top').hidden = first;
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h(
    'form',
    {
      class: 'login',
      'aria-label': 'Change your password',
      onsubmit: async (event) => {
        event.preventDefault();
        error.textContent = '';
        const values = Object.fromEntries(new FormData(form).entries());
        if (values.password !== values.again) {
          error.textContent = 'the two new passwords differ';
          return;
        }
        try {
          me = await post('/console/api/password', { current: values.current, password: values.password });
          flash('Your password is changed.');
          start();
        } catch (e) {
          error.textContent = e.message;
        }
      },
    },
    h('h1', null, first ? 'Choose your password' : 'Change your password'),
    first
      ? h('p', null, 'Your one-time password must be replaced before anything else (12 characters at least).')
      : null,
    h(
      'label',
      { for: 'pw-current' },
      h('span', null, first ? 'One-time password' : 'Current password'),
      h('input', {
        id: 'pw-current',
        name: 'current',
        type: 'password',
        required: true,
        autocomplete: 'current-password',
      }),
    ),
    h(
      'label',
      { for: 'pw-new' },
      h('span', null, 'New password'),
      h('input', {
        id: 'pw-new',
        name: 'password',
        type: 'password',
        required: true,
        minlength: 12,
        autocomplete: 'new-password',
      }),
    ),
    h(
      'label',
      { for: 'pw-again' },
      h('span', null, 'New password again'),
      h('input', {
        id: 'pw-again',
        name: 'again',
        type: 'password',
        required: true,
        minlength: 12,
        autocomplete: 'new-password',
      }),
    ),
    h('button', { type: 'submit' }, 'Change the password'),
    error,
  );
  show(form);
  document.getElementById('pw-current').focus();
}

document.getElementById('logout').addEventListener('click', async () => {
  try {
    await post('/console/api/logout');
  } catch {
    // Already over: the login page either way.
  }
  me = null;
  location.hash = '#/';
  loginPage('You are logged out.');
});

// ---- pages ---------------------------------------------------------------------------------

const purchaseLink = (p) =>
  h('a', { href: `#/purchase/${encodeURIComponent(p.id)}` }, p.externalReference ?? p.id);

const PURCHASE_COLUMNS = [
  ['Reference', purchaseLink],
  ['State', (p) => stateBadge(p.state)],
  ['Product', (p) => `${p.intent.productType} ${p.intent.providerCode}`],
  ['Identifier', (p) => p.intent.subscriberIdentifier],
  ['Amount', (p) => money(p.intent.amount)],
  ['Buyer', (p) => p.intent.requesterMsisdn],
  ['Channel', (p) => p.intent.channel],
  ['Created', (p) => when(p.createdAt)],
];

async function home() {
  const counts = [
    [
      'Purchases needing attention',
      '#/queues#needs',
      async () => (await get('/admin/purchases/counts')).byState.needs_attention,
    ],
    [
      'Refunds needing a person',
      '#/queues#refunds',
      async () => (await get('/admin/payments/refunds?limit=500')).count,
    ],
    [
      'Unmatched payments',
      '#/queues#unmatched',
      async () => (await get('/admin/payments/unmatched?limit=1')).total,
    ],
    ['Undelivered SMS', '#/queues#sms', async () => (await get('/admin/sms/undelivered?limit=1')).total],
    [
      'Open complaint cases',
      '#/queues#cases',
      async () => (await get('/admin/cases?state=open&limit=500')).count,
    ],
    [
      'Reconciliation mismatches',
      '#/queues#mismatches',
      async () => atLeast((await get(`/admin/reconciliation/mismatches?limit=${QUEUE_LIMIT}`)).count),
    ],
    [
      'Payments of unknown outcome',
      '#/queues#unknown',
      async () => (await get('/admin/payments/unknown?limit=1')).total,
    ],
    ['Top-ups to approve', '#/agents', async () => (await get('/admin/agents/deposits')).count],
    ['Registrations to approve', '#/agents', async () => (await get('/admin/agents/registrations')).count],
  ];
  const tiles = await Promise.all(
    counts.map(async ([label, href, count]) => {
      let value;
      try {
        value = await count();
      } catch (e) {
        value = e.status === 404 ? 'n/a' : '?';
      }
      return h(
        'li',
        null,
        h(
          'a',
          { href, class: 'tile', 'data-count': label },
          h('span', { class: 'count' }, value),
          h('span', null, label),
        ),
      );
    }),
  );
  show(h('h1', null, 'Today'), h('ul', { class: 'tiles', 'aria-label': 'Queues' }, tiles), findForm(''));
}

function findForm(value) {
  const id = 'find-q';
  return h(
    'form',
    {
      class: 'find',
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = `#/find?q=${encodeURIComponent(document.getElementById(id).value.trim())}`;
      },
    },
    h(
      'label',
      { for: id },
      h('span', null, 'Find a purchase'),
      h('input', {
        id,
        name: 'q',
        type: 'search',
        value,
        required: true,
        placeholder: 'phone, meter or account, reference, TOP/…, receipt',
        autocomplete: 'off',
      }),
    ),
    h('button', { type: 'submit' }, 'Find'),
  );
}

/** One box: every kind of lookup the text can be, asked at once, the purchases merged. */
async function find(q) {
  const nodes = [h('h1', null, 'Find'), findForm(q)];
  if (!q) return show(...nodes);
  const asks = [];
  const digits = q.replace(/[\s+()-]/g, '');
  const purchasesOf = (params) =>
    get(`/admin/purchases?${new URLSearchParams(params)}`).then((r) => r.purchases);
  if (/^\d{7,15}$/.test(digits)) asks.push(purchasesOf({ msisdn: q }), purchasesOf({ identifier: digits }));
  else if (/^[0-9 ]+$/.test(q)) asks.push(purchasesOf({ identifier: digits }));
  asks.push(purchasesOf({ reference: q }));
  if (/^[A-Za-z0-9]{6,20}$/.test(q))
    asks.push(
      get(`/admin/payments?${new URLSearchParams({ receipt: q })}`).then((r) =>
        Promise.all(
          r.payments.map((p) =>
            get(`/admin/purchases/${encodeURIComponent(p.purchaseId)}`).then((x) => x.purchase),
          ),
        ),
      ),
    );
  const found = new Map();
  for (const result of await Promise.allSettled(asks))
    if (result.status === 'fulfilled') for (const p of result.value) found.set(p.id, p);
  const list = [...found.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  nodes.push(
    h('p', { class: 'count-line', 'data-results': list.length, 'data-q': q }, `${list.length} purchase(s)`),
  );
  nodes.push(table('Purchases found', PURCHASE_COLUMNS, list, 'No purchase matches.'));
  show(...nodes);
}

async function purchasePage(id, reveal) {
  const q = reveal ? '?reveal=true' : '';
  const path = `/admin/purchases/${encodeURIComponent(id)}`;
  const [{ purchase, sms = [], audit = [] }, story, paid] = await Promise.all([
    get(path + q),
    get(`${path}/story${q}`),
    get(`/admin/payments/of/${encodeURIComponent(id)}${q}`).catch(() => null),
  ]);
  const i = purchase.intent;
  const r = purchase.result ?? {};
  const again = () => purchasePage(id, reveal);
  const actions = [];
  if (may('care') && ['succeeded', 'failed', 'needs_attention'].includes(purchase.state))
    actions.push(
      h(
        'button',
        {
          type: 'button',
          onclick: async (event) => {
            event.target.disabled = true;
            try {
              const done = await post(`${path}/resend-sms`);
              flash(`The SMS is queued again (request ${done.requestKey}).`);
              await again();
            } catch (e) {
              flash(e.message, 'bad');
              event.target.disabled = false;
            }
          },
        },
        'Resend the SMS',
      ),
    );
  if (may('care') && purchase.state === 'needs_attention') {
    actions.push(
      actionForm({
        label: 'Resolve this purchase',
        fields: [{ name: 'note', label: 'What was found and done', type: 'textarea', required: true }],
        submit: 'Resolve',
        act: async ({ note }) => {
          await post(`${path}/resolve`, { note });
          flash('The purchase is resolved.');
          await again();
        },
      }),
      actionForm({
        label: 'Reconcile again (retry only, never a second confirm)',
        fields: [{ name: 'note', label: 'Why (optional)', type: 'textarea' }],
        submit: 'Reconcile again',
        act: async ({ note }) => {
          await post(`${path}/reconcile`, note ? { note } : {});
          flash('The purchase is being reconciled again.');
          await again();
        },
      }),
    );
  }
  if (may('care'))
    actions.push(
      actionForm({
        label: 'Open a complaint case',
        fields: [
          { name: 'msisdn', label: "Caller's number", required: true, inputmode: 'tel' },
          {
            name: 'reason',
            label: 'Reason',
            type: 'select',
            options: ['token_not_received', 'meter_rejects', 'wrong_meter', 'other'],
          },
          { name: 'note', label: 'Note', type: 'textarea' },
        ],
        submit: 'Open the case',
        act: async ({ msisdn, reason, note }) => {
          const opened = await post('/admin/cases', {
            msisdn,
            purchaseId: purchase.id,
            reason,
            ...(note && { note }),
          });
          flash(`Case ${opened.case?.id ?? ''} ${opened.opened ? 'opened' : 'was open already'}.`);
        },
      }),
    );
  const revealLink = may('reveal')
    ? reveal
      ? h('a', { href: `#/purchase/${encodeURIComponent(id)}` }, 'Mask the numbers again')
      : h(
          'a',
          { href: `#/purchase/${encodeURIComponent(id)}?reveal=1`, class: 'reveal' },
          'Reveal numbers and token (audited)',
        )
    : null;
  show(
    h('h1', null, 'Purchase ', stateBadge(purchase.state)),
    h('p', { class: 'sub' }, purchase.id, ' ', revealLink),
    h(
      'section',
      { 'aria-labelledby': 'h-what' },
      h('h2', { id: 'h-what' }, 'What was bought'),
      facts([
        ['Channel', i.channel],
        ['Product', `${i.productType} ${i.providerCode}`],
        ['Meter or account', i.subscriberIdentifier],
        ['Name on the quote', i.subscriberDetails],
        ['Amount', money(i.amount)],
        ['Total paid', money(r.total)],
        ['Buyer', i.requesterMsisdn],
        ['Token sent to', i.beneficiaryMsisdn],
        ['Sold by agent', i.agent?.msisdn],
        ['Paid by mobile money', i.paymentRequired ? 'yes' : 'no'],
        ['Our reference', purchase.externalReference],
        ["The service's reference", r.reference],
        ['Token', r.rawToken],
        ['Units', r.units],
        ['Failure', purchase.failure && `${purchase.failure.code}: ${purchase.failure.message}`],
        [
          'Last service error',
          purchase.lastError && `${purchase.lastError.code}: ${purchase.lastError.message}`,
        ],
        [
          'Resolved',
          purchase.resolution &&
            `${purchase.resolution.by}, ${when(purchase.resolution.at)}: ${purchase.resolution.note}`,
        ],
        ['Created', when(purchase.createdAt)],
        ['Settled', when(purchase.settledAt)],
      ]),
    ),
    actions.length
      ? h(
          'section',
          { 'aria-labelledby': 'h-act', class: 'actions' },
          h('h2', { id: 'h-act' }, 'Actions'),
          actions,
        )
      : null,
    h(
      'section',
      { 'aria-labelledby': 'h-pay' },
      h('h2', { id: 'h-pay' }, 'Payment and callbacks'),
      paid?.payment
        ? [
            facts([
              ['Provider', paid.payment.provider],
              ['State', paid.payment.state],
              ['Payer', paid.payment.payerMsisdn ?? paid.payment.msisdn],
              ['Amount', money(paid.payment.amount)],
              ["Provider's reference", paid.payment.providerReference],
              ['Receipt', paid.payment.receipt],
              ['Refund', paid.payment.refund && JSON.stringify(paid.payment.refund)],
            ]),
            table(
              'Payment steps',
              [
                ['At', (t) => when(t.at)],
                ['From', (t) => t.from ?? ''],
                ['To', (t) => t.to],
              ],
              story.payment,
            ),
            table(
              'Callbacks and notices',
              [
                ['Outcome', (n) => n.outcome],
                ['Notice', (n) => detail(n.notice)],
              ],
              paid.notices,
              'No callback kept.',
            ),
          ]
        : h('p', { class: 'empty' }, 'No payment: paid from a float or the operator wallet.'),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-steps' },
      h('h2', { id: 'h-steps' }, 'Confirm, retry and every step'),
      table(
        'Purchase steps',
        [
          ['At', (t) => when(t.at)],
          ['From → to', (t) => `${t.from ?? '—'} → ${t.to}`],
          ['Service call', (t) => (t.call ? `${t.call.kind} ${t.call.requestId}` : '')],
          [
            'Outcome',
            (t) =>
              [
                t.patch?.lastError && `error ${t.patch.lastError.code}`,
                t.patch?.failure && `failure ${t.patch.failure.code}`,
                t.patch?.resolution && `resolved by ${t.patch.resolution.by}`,
              ]
                .filter(Boolean)
                .join(', '),
          ],
        ],
        story.purchase,
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-sms' },
      h('h2', { id: 'h-sms' }, 'SMS and delivery reports'),
      table(
        'SMS of this purchase',
        [
          ['To', (m) => m.to],
          ['Status', (m) => m.status],
          ['Attempts', (m) => m.attempts],
          ['Text', (m) => m.message],
          [
            'Delivery report',
            (m) =>
              m.delivery
                ? `${m.delivery.state} (${m.delivery.providerStatus}${m.delivery.failureReason ? `: ${m.delivery.failureReason}` : ''}) ${when(m.delivery.at)}${m.delivery.parts ? `, ${m.delivery.parts.delivered}/${m.delivery.parts.total} parts` : ''}`
                : m.sentAt
                  ? 'none yet'
                  : (m.lastError ?? ''),
          ],
          ['Updated', (m) => when(m.updatedAt)],
        ],
        sms,
        'No SMS yet.',
      ),
    ),
    h('section', { 'aria-labelledby': 'h-audit' }, h('h2', { id: 'h-audit' }, 'Audit'), auditTable(audit)),
  );
}

function auditTable(entries) {
  return table(
    'Audit trail',
    [
      ['When', (e) => when(e.at)],
      ['Who', (e) => e.actor],
      ['Action', (e) => e.action],
      [
        'Purchase',
        (e) =>
          e.purchaseId
            ? h('a', { href: `#/purchase/${encodeURIComponent(e.purchaseId)}` }, e.purchaseId.slice(0, 8))
            : '',
      ],
      ['Note or detail', (e) => [e.note, e.detail].filter(Boolean).join(' · ')],
    ],
    entries,
    'No entry.',
  );
}

/** The most a queue's list asks for (the API's own cap). */
const QUEUE_LIMIT = 500;
/** A list's count, `500+` when the list was cut at the cap (the mismatch list has no total). */
const atLeast = (count) => (count >= QUEUE_LIMIT ? `${count}+` : count);

/**
 * What a person may decide, closing a mismatch: the API's list (src/reconciliation/queue.ts
 * DECISIONS; the browser test checks the two agree).
 */
const MISMATCH_DECISIONS = ['vended', 'refunded', 'written_off', 'settled_late', 'not_a_mismatch', 'other'];

/** A mismatch's facts in a line: its summary, then the receipt and amount it is about. */
function mismatchFacts(m) {
  const statement = m.facts?.statement;
  const ours = m.facts?.ours;
  const line = statement?.receipt ? statement : statement?.second;
  return [
    m.facts?.summary,
    line?.receipt ? `statement ${line.receipt} ${line.amount ?? ''} ${line.payer ?? ''}`.trim() : null,
    ours?.paymentId ? `our payment ${ours.receipt ?? ours.paymentId} ${ours.amount ?? ''}`.trim() : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** What finance may do with an open mismatch: take it, note it, close it with a decision. */
function mismatchActions(m, reload) {
  if (!may('finance')) return '';
  const mine = m.assignee === me.operator.name;
  return h(
    'div',
    { class: 'actions' },
    mine
      ? null
      : h(
          'button',
          {
            type: 'button',
            'aria-label': `Assign mismatch ${m.id} to me`,
            onclick: async (event) => {
              const button = event.currentTarget;
              button.disabled = true;
              try {
                await post(`/admin/reconciliation/mismatches/${m.id}/assign`, { assignee: me.operator.name });
                flash(`Mismatch ${m.id} is assigned to you.`);
                await reload();
              } catch (e) {
                flash(e.message, 'bad');
                button.disabled = false;
              }
            },
          },
          'Assign to me',
        ),
    actionForm({
      label: `Note on mismatch ${m.id}`,
      fields: [{ name: 'note', label: 'What was found', type: 'textarea', required: true }],
      submit: 'Add the note',
      act: async ({ note }) => {
        await post(`/admin/reconciliation/mismatches/${m.id}/note`, { note });
        flash(`Mismatch ${m.id}: note added.`);
        await reload();
      },
    }),
    actionForm({
      label: `Close mismatch ${m.id}`,
      fields: [
        { name: 'decision', label: 'Decision', type: 'select', options: MISMATCH_DECISIONS, required: true },
        { name: 'note', label: 'What was decided and done', type: 'textarea', required: true },
      ],
      submit: 'Close',
      act: async ({ decision, note }) => {
        await post(`/admin/reconciliation/mismatches/${m.id}/close`, { decision, note });
        flash(`Mismatch ${m.id} is closed (${decision}).`);
        await reload();
      },
    }),
  );
}

/** A queue that is not set up here (no PostgreSQL, no payments) answers 404: shown so, not as empty. */
const orAbsent = (promise) => promise.catch((e) => (e.status === 404 ? null : Promise.reject(e)));

async function queues() {
  const [needs, refunds, unmatched, undelivered, cases, mismatches, unknown] = await Promise.all([
    get('/admin/purchases?state=needs_attention&limit=200'),
    get('/admin/payments/refunds?limit=200').catch(() => ({ payments: [] })),
    get('/admin/payments/unmatched?limit=200').catch(() => ({ notices: [], total: 0 })),
    get('/admin/sms/undelivered?limit=200'),
    get('/admin/cases?state=open&limit=200'),
    orAbsent(get(`/admin/reconciliation/mismatches?limit=${QUEUE_LIMIT}`)),
    orAbsent(get('/admin/payments/unknown?limit=200')),
  ]);
  const sections = [
    h(
      'section',
      { id: 'needs', 'aria-labelledby': 'h-needs' },
      h('h2', { id: 'h-needs' }, `Purchases needing attention (${needs.count})`),
      table('Purchases needing attention', PURCHASE_COLUMNS, needs.purchases),
    ),
    h(
      'section',
      { id: 'refunds', 'aria-labelledby': 'h-refunds' },
      h('h2', { id: 'h-refunds' }, `Refunds needing a person (${refunds.payments.length})`),
      table(
        'Refunds needing a person',
        [
          [
            'Purchase',
            (p) =>
              h('a', { href: `#/purchase/${encodeURIComponent(p.purchaseId)}` }, p.purchaseId.slice(0, 8)),
          ],
          ['State', (p) => stateBadge(p.state)],
          ['Amount', (p) => money(p.amount)],
          ['Receipt', (p) => p.receipt ?? ''],
          ['Updated', (p) => when(p.updatedAt)],
        ],
        refunds.payments,
      ),
    ),
    h(
      'section',
      { id: 'unmatched', 'aria-labelledby': 'h-unmatched' },
      h('h2', { id: 'h-unmatched' }, `Unmatched payments (${unmatched.total ?? 0})`),
      table(
        'Unmatched payments',
        [
          ['Received', (n) => when(n.receivedAt)],
          ['Provider', (n) => n.provider],
          ['Amount', (n) => (n.amount ? money(n.amount) : '')],
          ['Receipt', (n) => n.receipt ?? ''],
          ['Payer', (n) => n.payer ?? n.msisdn ?? ''],
          [
            'Close',
            (n) =>
              may('finance')
                ? actionForm({
                    label: `Close notice ${n.id}`,
                    fields: [
                      {
                        name: 'note',
                        label: 'How the money was dealt with',
                        type: 'textarea',
                        required: true,
                      },
                    ],
                    submit: 'Close',
                    act: async ({ note }) => {
                      await post(`/admin/payments/unmatched/${encodeURIComponent(n.id)}/resolve`, { note });
                      flash('The notice is closed.');
                      await queues();
                    },
                  })
                : '',
          ],
        ],
        unmatched.notices,
      ),
    ),
    h(
      'section',
      { id: 'sms', 'aria-labelledby': 'h-undelivered' },
      h('h2', { id: 'h-undelivered' }, `Undelivered SMS (${undelivered.total})`),
      may('care') && undelivered.total > 0
        ? h(
            'button',
            {
              type: 'button',
              onclick: async () => {
                const done = await post('/admin/sms/undelivered/resend', { limit: 200 });
                flash(`${done.resent.length} resent, ${done.remaining} left.`);
                await queues();
              },
            },
            'Resend them all',
          )
        : null,
      table(
        'Undelivered SMS',
        [
          ['To', (m) => m.to],
          ['Status', (m) => m.status],
          [
            'Purchase',
            (m) =>
              m.purchaseId
                ? h('a', { href: `#/purchase/${encodeURIComponent(m.purchaseId)}` }, m.purchaseId.slice(0, 8))
                : '',
          ],
          ['Why', (m) => m.lastError ?? m.error ?? ''],
          ['Since', (m) => when(m.createdAt)],
        ],
        undelivered.sms,
      ),
    ),
    h(
      'section',
      { id: 'cases', 'aria-labelledby': 'h-cases' },
      h('h2', { id: 'h-cases' }, `Complaint cases (${cases.count})`),
      table(
        'Open complaint cases',
        [
          ['Case', (c) => c.id],
          ['Caller', (c) => c.msisdn],
          ['Reason', (c) => c.reason],
          [
            'Purchase',
            (c) =>
              c.purchaseId
                ? h('a', { href: `#/purchase/${encodeURIComponent(c.purchaseId)}` }, c.purchaseId.slice(0, 8))
                : '',
          ],
          ['Notes', (c) => c.notes ?? ''],
          [
            'Close',
            (c) =>
              may('care')
                ? actionForm({
                    label: `Close case ${c.id}`,
                    fields: [
                      { name: 'note', label: 'What was found and done', type: 'textarea', required: true },
                    ],
                    submit: 'Close',
                    act: async ({ note }) => {
                      await post(`/admin/cases/${c.id}/close`, { note });
                      flash(`Case ${c.id} is closed.`);
                      await queues();
                    },
                  })
                : '',
          ],
        ],
        cases.cases,
      ),
    ),
    h(
      'section',
      { id: 'mismatches', 'aria-labelledby': 'h-mismatches' },
      h(
        'h2',
        { id: 'h-mismatches' },
        mismatches ? `Reconciliation mismatches (${atLeast(mismatches.count)})` : 'Reconciliation mismatches',
      ),
      mismatches
        ? table(
            'Open reconciliation mismatches',
            [
              ['Mismatch', (m) => String(m.id)],
              ['Reason', (m) => m.reason],
              ['Day', (m) => m.day],
              ['Amount', (m) => m.amount],
              ['Facts', (m) => mismatchFacts(m)],
              [
                'Purchase',
                (m) =>
                  m.purchaseId
                    ? h(
                        'a',
                        { href: `#/purchase/${encodeURIComponent(m.purchaseId)}` },
                        m.purchaseId.slice(0, 8),
                      )
                    : '',
              ],
              ['Suggested', (m) => m.suggestedAction],
              ['Assignee', (m) => m.assignee ?? 'nobody'],
              ['Notes', (m) => m.notes ?? ''],
              ['Work it', (m) => mismatchActions(m, queues)],
            ],
            mismatches.mismatches,
            'No open mismatch.',
          )
        : h('p', { class: 'empty' }, 'The reconciliation is not set up here (it needs PostgreSQL).'),
    ),
    h(
      'section',
      { id: 'unknown', 'aria-labelledby': 'h-unknown' },
      h(
        'h2',
        { id: 'h-unknown' },
        unknown ? `Payments of unknown outcome (${unknown.total})` : 'Payments of unknown outcome',
      ),
      unknown
        ? [
            h(
              'p',
              null,
              'Nobody learnt whether these were paid: look the payer up in the provider’s statement, give the money back or vend through the usual paths, then say what was done.',
            ),
            table(
              'Payments of unknown outcome',
              [
                ['Requested', (p) => when(p.requestedAt)],
                ['Provider', (p) => p.provider],
                ['Amount', (p) => money(p.amount)],
                ['Payer', (p) => p.payerMsisdn],
                ['Provider reference', (p) => p.providerReference ?? ''],
                [
                  'Purchase',
                  (p) =>
                    p.purchaseId.startsWith('topup:')
                      ? 'agent top-up'
                      : h(
                          'a',
                          { href: `#/purchase/${encodeURIComponent(p.purchaseId)}` },
                          p.purchaseId.slice(0, 8),
                        ),
                ],
                [
                  'Review',
                  (p) =>
                    may('finance')
                      ? actionForm({
                          label: `Review payment ${p.id}`,
                          fields: [
                            {
                              name: 'note',
                              label: 'What the provider said and what was done',
                              type: 'textarea',
                              required: true,
                            },
                          ],
                          submit: 'Reviewed',
                          act: async ({ note }) => {
                            await post(`/admin/payments/unknown/${encodeURIComponent(p.id)}/review`, {
                              note,
                            });
                            flash('The payment is reviewed.');
                            await queues();
                          },
                        })
                      : '',
                ],
              ],
              unknown.payments,
              'None waits.',
            ),
          ]
        : h('p', { class: 'empty' }, 'Not kept here (payments need PostgreSQL).'),
    ),
  ];
  show(h('h1', null, 'Queues'), sections);
  const anchor = location.hash.split('#')[2];
  if (anchor) document.getElementById(anchor)?.scrollIntoView();
}

function agentSearch() {
  const id = 'agent-q';
  return h(
    'form',
    {
      class: 'find',
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = `#/agent/${encodeURIComponent(document.getElementById(id).value.trim())}`;
      },
    },
    h(
      'label',
      { for: id },
      h('span', null, 'Open an agent by its number'),
      h('input', { id, type: 'search', required: true, inputmode: 'tel', autocomplete: 'off' }),
    ),
    h('button', { type: 'submit' }, 'Open'),
  );
}

async function agentsPage() {
  const [list, deposits, registrations] = await Promise.all([
    get('/admin/agents?limit=200'),
    get('/admin/agents/deposits'),
    get('/admin/agents/registrations'),
  ]);
  const decide = (kind, item, permission) =>
    may(permission)
      ? h(
          'span',
          { class: 'buttons' },
          ['approve', 'reject'].map((decision) =>
            h(
              'button',
              {
                type: 'button',
                class: decision === 'reject' ? 'danger' : undefined,
                'aria-label': `${decision} ${kind} ${item.id}`,
                onclick: async (event) => {
                  event.target.disabled = true;
                  try {
                    const done = await post(
                      `/admin/agents/${kind}/${encodeURIComponent(item.id)}/${decision}`,
                    );
                    flash(
                      `${kind === 'deposits' ? 'Top-up' : 'Registration'} ${item.id}: ${done.status}${done.oneTimePin ? `, one-time PIN ${done.oneTimePin}` : ''}.`,
                    );
                    await agentsPage();
                  } catch (e) {
                    flash(e.message, 'bad');
                    event.target.disabled = false;
                  }
                },
              },
              decision === 'approve' ? 'Approve' : 'Reject',
            ),
          ),
        )
      : '';
  show(
    h('h1', null, 'Agents'),
    agentSearch(),
    h(
      'section',
      { 'aria-labelledby': 'h-deposits' },
      h('h2', { id: 'h-deposits' }, `Top-ups to approve (${deposits.count})`),
      table(
        'Top-ups to approve',
        [
          ['No.', (d) => d.id],
          ['Agent', (d) => d.msisdn],
          ['Amount', (d) => (typeof d.amountMinor === 'number' ? minorText(d.amountMinor) : money(d.amount))],
          ['Bank reference', (d) => d.bankReference],
          ['Reported', (d) => when(d.requestedAt)],
          ['Decide', (d) => decide('deposits', d, 'finance')],
        ],
        deposits.deposits,
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-regs' },
      h('h2', { id: 'h-regs' }, `Registrations to approve (${registrations.count})`),
      table(
        'Registrations to approve',
        [
          ['No.', (r) => r.id],
          ['Dealer', (r) => r.dealerMsisdn ?? r.dealer],
          ['Retailer', (r) => `${r.name ?? ''} ${r.msisdn ?? ''}`],
          ['Asked', (r) => when(r.createdAt)],
          ['Decide', (r) => decide('registrations', r, 'agents')],
        ],
        registrations.registrations,
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-network' },
      h('h2', { id: 'h-network' }, `The network (${list.count})`),
      table(
        'Agents',
        [
          ['Name', (a) => a.agent.name],
          ['Number', (a) => a.agent.msisdn],
          ['Status', (a) => stateBadge(a.agent.status)],
          [
            'Role',
            (a) =>
              a.agent.dealer
                ? 'dealer'
                : a.agent.dealerMsisdn
                  ? `retailer of ${a.agent.dealerMsisdn}`
                  : a.agent.outletMsisdn
                    ? 'assistant'
                    : 'agent',
          ],
          ['Float', (a) => (a.float ? floatText(a.float) : 'account')],
        ],
        list.agents,
      ),
    ),
  );
}

function floatText(f) {
  const cur = f.currency ?? '';
  const available = f.availableMinor ?? f.balanceMinor ?? f.available?.minor ?? f.balance?.minor;
  const held = f.heldMinor ?? f.held?.minor;
  if (typeof available !== 'number') return JSON.stringify(f);
  return `${cur} ${minorText(available)}${typeof held === 'number' && held ? ` (${minorText(held)} held)` : ''}`.trim();
}

async function agentPage(msisdn) {
  const path = `/admin/agents/${encodeURIComponent(msisdn)}`;
  const [shown, network, statement] = await Promise.all([
    get(path),
    get(`${path}/network`).catch(() => null),
    get(`${path}/statement`).catch(() => null),
  ]);
  const a = shown.agent;
  const again = () => agentPage(msisdn);
  const acts = [];
  if (may('agents')) {
    acts.push(
      h(
        'button',
        {
          type: 'button',
          class: a.status === 'disabled' ? undefined : 'danger',
          onclick: async () => {
            try {
              await post(`${path}/${a.status === 'disabled' ? 'enable' : 'disable'}`);
              flash(a.status === 'disabled' ? 'The agent is unblocked.' : 'The agent is blocked.');
              await again();
            } catch (e) {
              flash(e.message, 'bad');
            }
          },
        },
        a.status === 'disabled' ? 'Unblock' : 'Block',
      ),
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            try {
              const done = await post(`${path}/reset-pin`);
              flash(`New one-time PIN: ${done.oneTimePin} (tell the agent; shown once).`);
              await again();
            } catch (e) {
              flash(e.message, 'bad');
            }
          },
        },
        'Reset the PIN',
      ),
    );
  }
  if (may('finance') && shown.float) {
    for (const [kind, label] of [
      ['credits', 'Credit the float (a top-up received)'],
      ['adjustments', 'Adjust the float (a correction, + or −)'],
    ])
      acts.push(
        actionForm({
          label,
          fields: [
            {
              name: 'amount',
              label: `Amount (${shown.currency} 100.00${kind === 'adjustments' ? ' or -20.00' : ''})`,
              required: true,
            },
            { name: 'reference', label: 'Reference (a bank slip, a ticket)', required: true },
            {
              name: 'note',
              label: kind === 'credits' ? 'Note (optional)' : 'Why',
              required: kind === 'adjustments',
              type: 'textarea',
            },
          ],
          submit: kind === 'credits' ? 'Credit' : 'Adjust',
          act: async (values) => {
            const amount = /^[A-Z]{3} /.test(values.amount)
              ? values.amount
              : `${shown.currency} ${values.amount}`;
            const { note, ...rest } = values;
            const body = { ...rest, amount, ...(note && { note }) };
            await api('POST', `${path}/${kind}`, body);
            flash('The float is changed.');
            await again();
          },
        }),
      );
  }
  show(
    h('h1', null, a.name, ' ', stateBadge(a.status)),
    h('p', { class: 'sub' }, a.msisdn),
    facts([
      [
        'Float',
        shown.float ? floatText({ currency: shown.currency, ...shown.float }) : 'sells on an account',
      ],
      ['Left today', shown.allowance ? JSON.stringify(shown.allowance) : ''],
      ['Limits', JSON.stringify(a.limits)],
      ['Dealer', a.dealer ? 'yes' : a.dealerMsisdn ? `retailer of ${a.dealerMsisdn}` : 'no'],
      ['Language', a.language],
      [
        'PIN',
        a.mustChangePin
          ? 'one-time PIN not yet changed'
          : a.lockedUntil
            ? `locked until ${when(a.lockedUntil)}`
            : 'set',
      ],
      ['Registered', when(a.createdAt)],
    ]),
    acts.length
      ? h(
          'section',
          { class: 'actions', 'aria-labelledby': 'h-agent-act' },
          h('h2', { id: 'h-agent-act' }, 'Actions'),
          acts,
        )
      : null,
    network && (network.retailers?.length || network.assistants?.length)
      ? h(
          'section',
          { 'aria-labelledby': 'h-net' },
          h('h2', { id: 'h-net' }, 'Retailers and assistants'),
          table(
            'Network',
            [
              ['Name', (x) => x.agent.name],
              ['Number', (x) => x.agent.msisdn],
              ['Float', (x) => (x.float ? floatText(x.float) : '')],
              ['Sales today', (x) => `${x.today.count} · ${minorText(x.today.valueMinor)}`],
            ],
            [...(network.retailers ?? []), ...(network.assistants ?? [])],
          ),
        )
      : null,
    statement
      ? h(
          'section',
          { 'aria-labelledby': 'h-stmt' },
          h('h2', { id: 'h-stmt' }, 'Statement and commission'),
          statementView(statement),
        )
      : null,
  );
}

function statementView(statement) {
  const cur = statement.currency;
  const entries = statement.entries ?? [];
  const commission = entries.filter((e) => e.kind === 'commission').reduce((n, e) => n + e.amountMinor, 0);
  return [
    facts([
      ['Opening', `${cur} ${minorText(statement.openingMinor)}`],
      ['Closing', `${cur} ${minorText(statement.closingMinor)}`],
      ['Available now', `${cur} ${minorText(statement.balance.availableMinor)}`],
      ['Held by sales in progress', `${cur} ${minorText(statement.balance.heldMinor)}`],
      ['Commission in this statement', `${cur} ${minorText(commission)}`],
    ]),
    table(
      'Statement',
      [
        ['No.', (e) => e.seq],
        ['At', (e) => when(e.at)],
        ['Kind', (e) => e.kind],
        ['Amount', (e) => minorText(e.amountMinor)],
        ['Balance', (e) => minorText(e.balanceMinor)],
        ['Reference', (e) => [e.reference, e.purchaseKey, e.note].filter(Boolean).join(' · ')],
      ],
      entries,
      'No entry.',
    ),
  ];
}

/** Today (YYYY-MM-DD: en-CA's form) in the zone the books keep their days in (`me.timeZone`), not the browser's. */
const localDate = (d = new Date()) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: me?.timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(d);

/** Bars of sales per hour (stacked by product), inline SVG, with a text table beside it for readers. */
function hourChart(hours) {
  const products = [...new Set(hours.map((x) => x.productType))].sort();
  const perHour = Array.from({ length: 24 }, (_, hour) => hours.filter((x) => x.hour === hour));
  const max = Math.max(1, ...perHour.map((xs) => xs.reduce((n, x) => n + x.amount.minor, 0)));
  const W = 480;
  const H = 160;
  const bw = W / 24;
  const bars = [];
  perHour.forEach((xs, hour) => {
    let y = H;
    for (const x of xs) {
      const height = (x.amount.minor / max) * (H - 10);
      y -= height;
      bars.push(
        s(
          'rect',
          { x: hour * bw + 2, y, width: bw - 4, height, class: `p${products.indexOf(x.productType) % 4}` },
          s(
            'title',
            null,
            `${String(hour).padStart(2, '0')}:00 ${x.productType}: ${x.count} sales, ${money(x.amount)}`,
          ),
        ),
      );
    }
  });
  const labels = [0, 6, 12, 18, 23].map((hour) =>
    s('text', { x: hour * bw + bw / 2, y: H + 14, 'text-anchor': 'middle' }, `${hour}h`),
  );
  return h(
    'figure',
    { class: 'chart' },
    s(
      'svg',
      { viewBox: `0 0 ${W} ${H + 20}`, role: 'img', 'aria-label': 'Sales per hour, by product' },
      bars,
      labels,
    ),
    h(
      'figcaption',
      null,
      'Sales per hour: ',
      products.map((p, n) => h('span', { class: `key p${n % 4}` }, p)),
    ),
  );
}

async function dayPage(date) {
  const day = date || localDate();
  const [report, hourly] = await Promise.all([
    get(`/admin/reports/daily?date=${day}`),
    get(`/admin/reports/hourly?date=${day}`),
  ]);
  const byProduct = new Map();
  for (const line of report.sales) {
    const key = `${line.productType} ${line.total.currency}`;
    const seen = byProduct.get(key) ?? {
      productType: line.productType,
      count: 0,
      currency: line.total.currency,
      minor: 0,
    };
    seen.count += line.count;
    seen.minor += line.total.minor;
    byProduct.set(key, seen);
  }
  const form = h(
    'form',
    {
      class: 'find',
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = `#/day?date=${document.getElementById('day-date').value}`;
      },
    },
    h(
      'label',
      { for: 'day-date' },
      h('span', null, 'Day'),
      h('input', { id: 'day-date', type: 'date', value: day, required: true }),
    ),
    h('button', { type: 'submit' }, 'Show'),
    h(
      'a',
      { href: `/admin/reports/daily?date=${day}&format=csv`, download: `report-${day}.csv`, class: 'button' },
      'Export CSV',
    ),
  );
  show(
    h('h1', null, `The day: ${day}`),
    form,
    hourChart(hourly.hours),
    h(
      'section',
      { 'aria-labelledby': 'h-products' },
      h('h2', { id: 'h-products' }, 'Per product'),
      table(
        'Sales per product',
        [
          ['Product', (x) => x.productType],
          ['Sales', (x) => x.count],
          ['Total', (x) => money({ currency: x.currency, minor: x.minor })],
        ],
        [...byProduct.values()],
        'No sale that day.',
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-sales' },
      h('h2', { id: 'h-sales' }, 'Sales'),
      table(
        'Sales by product, provider and channel',
        [
          ['Product', (x) => x.productType],
          ['Provider', (x) => x.providerCode],
          ['Channel', (x) => x.channel],
          ['Sales', (x) => x.count],
          ['Amount', (x) => money(x.amount)],
          ['Charges', (x) => money(x.charges)],
          ['Total', (x) => money(x.total)],
        ],
        report.sales,
        'No sale that day.',
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-agents-day' },
      h('h2', { id: 'h-agents-day' }, 'Agents'),
      table(
        "Agents' day",
        [
          ['Agent', (x) => `${x.name ?? ''} ${x.msisdn}`],
          ['Sales', (x) => `${x.sales.count} · ${money(x.sales.value)}`],
          ['Float in', (x) => money(x.floatIn)],
          ['Float out', (x) => money(x.floatOut)],
          ['Commission', (x) => money(x.commission)],
          ['Closing', (x) => (x.closing ? money(x.closing.balance) : '')],
        ],
        report.agents,
        'No agent activity.',
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-open' },
      h('h2', { id: 'h-open' }, 'Open at the end of the day'),
      table(
        'Open purchases',
        [
          ['State', (x) => stateBadge(x.state)],
          ['Count', (x) => x.count],
          ['Amount', (x) => money(x.amount)],
        ],
        report.open,
        'None.',
      ),
    ),
  );
}

async function auditPage() {
  const { entries } = await get('/admin/purchases/audit?limit=200');
  show(
    h('h1', null, 'Audit'),
    h('p', null, 'Who did what, newest first: every change, every reveal, every login.'),
    auditTable(entries),
  );
}

// ---- routing --------------------------------------------------------------------------------

async function route() {
  if (!me) return;
  const hash = location.hash.slice(1) || '/';
  // `#/queues#mismatches`: the page, then the section to scroll to (queues() reads it).
  const [pathPart, query = ''] = hash.split('#')[0].split('?');
  const params = new URLSearchParams(query);
  const parts = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  for (const link of document.querySelectorAll('nav a'))
    link.toggleAttribute('aria-current', link.getAttribute('href') === `#/${parts[0] ?? ''}`);
  try {
    if (parts.length === 0) await home();
    else if (parts[0] === 'find') await find(params.get('q') ?? '');
    else if (parts[0] === 'purchase' && parts[1]) await purchasePage(parts[1], params.get('reveal') === '1');
    else if (parts[0] === 'queues') await queues();
    else if (parts[0] === 'agents') await agentsPage();
    else if (parts[0] === 'agent' && parts[1]) await agentPage(parts[1]);
    else if (parts[0] === 'day') await dayPage(params.get('date'));
    else if (parts[0] === 'audit') await auditPage();
    else if (parts[0] === 'password') passwordPage(false);
    else show(h('h1', null, 'Not found'), h('p', null, h('a', { href: '#/' }, 'Home')));
  } catch (e) {
    if (e.status === 401) return;
    show(h('h1', null, 'Could not show this'), h('p', { class: 'error', role: 'alert' }, e.message));
  }
}

function start() {
  document.getElementById('top').hidden = false;
  document
    .getElementById('who')
    .replaceChildren(
      h('a', { href: '#/password', title: 'Change your password' }, me.operator.name),
      ` (${me.operator.role})`,
    );
  route();
}

window.addEventListener('hashchange', () => {
  flashBox.replaceChildren();
  route();
});

(async () => {
  try {
    me = await get('/console/api/me');
  } catch {
    me = null;
  }
  if (!me?.operator) {
    me = null;
    loginPage();
  } else if (me.operator.mustChangePassword) passwordPage(true);
  else start();
})();
