// The phone simulator's page: plain browser JavaScript, no build step, nothing fetched from
// elsewhere. Each aggregator format below builds the requests its aggregator sends and reads
// the screen out of the reply, so a dialogue here goes through the gateway's real route.
'use strict';

(function () {
  // --- GSM 03.38: how a handset counts a screen (septets, or UCS-2 code units) --------------
  const GSM_BASIC = new Set(
    Array.from(
      '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
        '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
    ),
  );
  const GSM_EXTENSION = new Set(Array.from('\f^{}\\[~]|€'));

  function measure(text) {
    let septets = 0;
    for (const ch of text) {
      if (GSM_BASIC.has(ch)) septets += 1;
      else if (GSM_EXTENSION.has(ch)) septets += 2;
      else return { encoding: 'UCS-2', length: text.length };
    }
    return { encoding: 'GSM-7', length: septets };
  }

  // --- Aggregator wire formats ----------------------------------------------------------------
  // A request is {method, path (after /ussd/<name>), form | json | query}. `read` gets the body
  // text and the response headers and returns {text, end}. `hangUp` is absent for formats whose
  // aggregator sends no end notification (the gateway's session then simply times out).
  const digitsOf = (code) =>
    code
      .replace(/[^0-9*]/g, '')
      .replace(/^\*+/, '')
      .split('*')[0];
  const network = 'SIMULATOR';

  function json(body) {
    return JSON.parse(body);
  }

  const FORMATS = {
    africastalking: {
      label: "Africa's Talking",
      // A one-dial shortcut (*384*1*01234567890*100#): the base code, and the groups after it as
      // the first text; every later text goes on from them (cumulative), as Africa's Talking sends.
      start: (s) => ({ method: 'POST', path: '', form: atForm(s, afterCode(s.serviceCode)) }),
      next: (s, input) => ({
        method: 'POST',
        path: '',
        form: atForm(s, [afterCode(s.serviceCode), ...s.inputs, input].filter((t) => t !== '').join('*')),
      }),
      hangUp: (s) => ({
        method: 'POST',
        path: '/events',
        form: { sessionId: s.id, phoneNumber: `+${s.msisdn}`, status: 'Incomplete' },
      }),
      read: conEnd,
    },
    hubtel: {
      label: 'Hubtel',
      start: (s) => ({ method: 'POST', path: '', json: hubtel(s, 'Initiation', s.serviceCode) }),
      next: (s, input) => ({ method: 'POST', path: '', json: hubtel(s, 'Response', input) }),
      hangUp: (s) => ({ method: 'POST', path: '', json: hubtel(s, 'Release', '') }),
      read: (body) => {
        const r = json(body);
        return { text: r.Message, end: r.Type === 'Release' };
      },
    },
    arkesel: {
      label: 'Arkesel',
      start: (s) => ({ method: 'POST', path: '', json: arkesel(s, true, s.serviceCode) }),
      next: (s, input) => ({ method: 'POST', path: '', json: arkesel(s, false, input) }),
      read: (body) => {
        const r = json(body);
        return { text: r.message, end: !r.continueSession };
      },
    },
    nalo: {
      label: 'Nalo',
      start: (s) => ({ method: 'POST', path: '', json: nalo(s, true, s.serviceCode) }),
      next: (s, input) => ({ method: 'POST', path: '', json: nalo(s, false, input) }),
      read: (body) => {
        const r = json(body);
        return { text: r.MSG, end: !r.MSGTYPE };
      },
    },
    comviva: {
      label: 'Comviva (Flares, GET)',
      // The first input is the dialled string without `*` and `#`, a shortcut's groups included.
      start: (s) => ({
        method: 'GET',
        path: '',
        query: comviva(
          s,
          [digitsOf(s.serviceCode), afterCode(s.serviceCode)].filter((t) => t !== '').join('*'),
        ),
      }),
      next: (s, input) => ({ method: 'GET', path: '', query: comviva(s, input) }),
      hangUp: (s) => ({
        method: 'GET',
        path: '',
        query: {
          ...comvivaCredentials(),
          SessionID: s.id,
          msisdn: s.msisdn,
          clean: 'clean-session',
          error: '522',
        },
      }),
      read: (body, headers) => ({ text: body, end: headers.get('Freeflow') === 'FB' }),
    },
    infobip: {
      label: 'Infobip (session paths)',
      start: (s) => ({
        method: 'POST',
        path: `/session/${s.id}/start`,
        json: { msisdn: s.msisdn, text: s.serviceCode, shortCode: s.serviceCode, language: 'en' },
      }),
      next: (s, input) => ({
        method: 'POST',
        path: `/session/${s.id}/response`,
        json: { msisdn: s.msisdn, text: input },
      }),
      hangUp: (s) => ({
        method: 'PUT',
        path: `/session/${s.id}/end`,
        json: { reason: 'user abort', exitCode: 200 },
      }),
      read: (body) => {
        const r = json(body);
        return { text: r.ussdMenu, end: r.shouldClose };
      },
    },
    cellulant: {
      label: 'Cellulant',
      start: (s) => ({ method: 'POST', path: '', form: cellulant(s, 'BEG', s.serviceCode) }),
      next: (s, input) => ({ method: 'POST', path: '', form: cellulant(s, '', input) }),
      hangUp: (s) => ({ method: 'POST', path: '', form: cellulant(s, 'ABO', '') }),
      read: (body) => {
        const parts = body.split('|');
        return { text: parts[1] ?? '', end: parts[4] === 'end' };
      },
    },
    safaricom: {
      label: 'Safaricom-style CON/END',
      // Safaricom direct: DEST the base code, USSD_PARAMS what was dialled after it, then the inputs.
      start: (s) => ({ method: 'POST', path: '', form: safaricom(s, afterCode(s.serviceCode)) }),
      next: (s, input) => ({
        method: 'POST',
        path: '',
        form: safaricom(s, [afterCode(s.serviceCode), ...s.inputs, input].filter((t) => t !== '').join('*')),
      }),
      read: conEnd,
    },
  };

  function conEnd(body) {
    return { text: body.replace(/^(CON|END) ?/, ''), end: body.startsWith('END') };
  }
  /** `*384*1*01234567890*100#` → `*384#` (the code the aggregator is configured with). */
  const baseCode = (code) => `*${digitsOf(code)}#`;
  /** `*384*1*01234567890*100#` → `1*01234567890*100` (nothing for a bare `*384#`). */
  const afterCode = (code) =>
    code
      .replace(/[^0-9*]/g, '')
      .replace(/^\*+/, '')
      .split('*')
      .slice(1)
      .join('*');
  function atForm(s, text) {
    return {
      sessionId: s.id,
      phoneNumber: `+${s.msisdn}`,
      serviceCode: baseCode(s.serviceCode),
      networkCode: '99999',
      text,
    };
  }
  function hubtel(s, type, message) {
    return {
      SessionId: s.id,
      Mobile: s.msisdn,
      ServiceCode: digitsOf(s.serviceCode),
      Type: type,
      Message: message,
      Operator: network,
      Sequence: s.hops + 1,
      ClientState: '',
      Platform: 'USSD',
    };
  }
  function arkesel(s, isNew, userData) {
    return { sessionID: s.id, userID: 'SIMULATOR', newSession: isNew, msisdn: s.msisdn, userData, network };
  }
  function nalo(s, isNew, userData) {
    return {
      USERID: 'SIMULATOR',
      MSISDN: s.msisdn,
      USERDATA: userData,
      MSGTYPE: isNew,
      NETWORK: network,
      SESSIONID: s.id,
    };
  }
  function comvivaCredentials() {
    const userid = el('comviva-userid').value;
    return userid ? { userid, password: el('comviva-password').value } : {};
  }
  function comviva(s, input) {
    return {
      ...comvivaCredentials(),
      SessionID: s.id,
      MSISDN: s.msisdn,
      // The switching centre's address (not the service code).
      MSC: '26770000000',
      input,
    };
  }
  function cellulant(s, opCode, input) {
    return { MSISDN: s.msisdn, sessionID: s.id, opCode, INPUT: input, ABORT: opCode === 'ABO' ? '1' : '0' };
  }
  function safaricom(s, params) {
    return {
      SESSION_ID: s.id,
      MSISDN: s.msisdn,
      DEST: digitsOf(s.serviceCode),
      USSD_PARAMS: params,
    };
  }

  /** The generic JSON format, built from the gateway's own USSD_GENERIC_MAPPING. */
  function genericFormat(m) {
    const base = (s, text) => ({
      [m.sessionId]: s.id,
      [m.msisdn]: s.msisdn,
      ...(m.serviceCode ? { [m.serviceCode]: s.serviceCode } : {}),
      [m.text]: text,
    });
    return {
      label: 'Generic (USSD_GENERIC_MAPPING)',
      start: (s) => ({
        method: 'POST',
        path: '',
        json: {
          ...base(s, m.input === 'cumulative' ? '' : s.serviceCode),
          ...(m.newSession ? { [m.newSession.field]: m.newSession.equals } : {}),
        },
      }),
      next: (s, input) => ({
        method: 'POST',
        path: '',
        json: base(s, m.input === 'cumulative' ? [...s.inputs, input].join('*') : input),
      }),
      hangUp: m.end
        ? (s) => ({ method: 'POST', path: '', json: { ...base(s, ''), [m.end.field]: m.end.equals } })
        : undefined,
      read: (body) => {
        if (m.reply.format === 'conEnd') return conEnd(body);
        const r = json(body);
        return {
          text: String(r[m.reply.text] ?? ''),
          end: String(r[m.reply.end]) === String(m.reply.endValue),
        };
      },
    };
  }

  // --- Inbound SMS formats ------------------------------------------------------------------
  const INBOUND = {
    africastalking: {
      label: "Africa's Talking (form)",
      build: (id, from, to, text) => ({
        form: { id, from: `+${from}`, to, text, date: new Date().toISOString(), linkId: id },
      }),
    },
    inbound: {
      label: 'Generic JSON',
      build: (id, from, to, text) => ({ json: { id, from, to, text, receivedAt: new Date().toISOString() } }),
    },
  };

  // --- Page state -----------------------------------------------------------------------------
  const el = (id) => document.getElementById(id);
  const state = { config: null, phones: [], selected: null };
  const DEFAULT_PHONES = [
    { msisdn: '26771234567', label: 'Subscriber A' },
    { msisdn: '26772345678', label: 'Subscriber B' },
    { msisdn: '26773456789', label: 'Agent' },
  ];
  let seq = 0;
  const newId = (prefix) =>
    `${prefix}${Date.now().toString(36)}${(++seq).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

  function status(message, isError = false) {
    const node = el('status');
    node.textContent = message;
    node.classList.toggle('error', isError);
  }

  /** Headers for the gateway's dev routes (the admin bearer when the page was given one). */
  function devHeaders() {
    const token = el('admin-token').value;
    return token ? { authorization: `Bearer ${token}` } : {};
  }

  /** GET/POST a dev JSON route; null (and a status line) when it fails. */
  async function dev(path, init = {}) {
    try {
      const response = await fetch(path, { ...init, headers: { ...devHeaders(), ...(init.headers ?? {}) } });
      if (response.status === 401) {
        el('admin-token-label').hidden = false;
        status('The dev routes need the admin token here (ADMIN_TOKEN): enter it above.', true);
        return null;
      }
      if (response.status === 204) return {};
      const body = await response.json();
      if (!response.ok) {
        status(body.error?.message ?? body.error ?? `${path}: HTTP ${response.status}`, true);
        return null;
      }
      return body;
    } catch (error) {
      status(`${path}: ${error.message}`, true);
      return null;
    }
  }

  function formatOf(name) {
    if (name === 'generic')
      return state.config.genericMapping ? genericFormat(state.config.genericMapping) : null;
    return FORMATS[name] ?? null;
  }

  function aggregatorInfo(name) {
    return (
      state.config.aggregators.find((a) => a.name === name) ?? {
        name,
        screenLimit: state.config.defaultScreenLimit,
      }
    );
  }

  /** Send one wire request to /ussd/<name>; returns {status, body, headers} and records it. */
  async function sendWire(phone, name, request) {
    const query = request.query ? `?${new URLSearchParams(request.query)}` : '';
    const url = `/ussd/${name}${request.path}${query}`;
    const headers = {};
    const key = el('ussd-key').value;
    if (key) headers['X-Callback-Key'] = key;
    let body;
    if (request.form) {
      body = new URLSearchParams(request.form);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (request.json) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    }
    const shown = request.form ? String(body) : request.json ? JSON.stringify(request.json, null, 1) : '';
    const response = await fetch(url, { method: request.method, headers, body });
    const text = await response.text();
    const wireHeaders = ['freeflow']
      .filter((h) => response.headers.get(h))
      .map((h) => `${h}: ${response.headers.get(h)}\n`);
    phone.nodes.wire.textContent =
      `${request.method} ${url}\n${shown}\n\n← ${response.status} ${response.headers.get('content-type') ?? ''}\n` +
      `${wireHeaders.join('')}${text}`;
    return { status: response.status, body: text, headers: response.headers };
  }

  // --- Phones ---------------------------------------------------------------------------------
  function addPhone(msisdn, label) {
    if (state.phones.some((p) => p.msisdn === msisdn)) {
      status(`${msisdn} is already on the page.`, true);
      return;
    }
    const node = el('phone-template').content.firstElementChild.cloneNode(true);
    const q = (sel) => node.querySelector(sel);
    const phone = {
      msisdn,
      label,
      session: null,
      inboxSeen: null,
      node,
      nodes: {
        kind: q('.kind'),
        counter: q('.counter'),
        text: q('.screen-text'),
        reply: q('.reply'),
        dial: q('.dial'),
        send: q('.send'),
        hangup: q('.hangup'),
        wire: q('.wire-text'),
        inbox: q('.inbox'),
        smsCount: q('.sms-count'),
        smsText: q('.sms-text'),
        smsStatus: q('.sms-status'),
        prompt: q('.payment-prompt'),
        promptText: q('.prompt-text'),
        approve: q('.approve'),
        decline: q('.decline'),
      },
      promptId: null,
    };
    node.dataset.msisdn = msisdn;
    q('.phone-label').textContent = label || 'Phone';
    q('.phone-number').textContent = `+${msisdn}`;
    q('.remove').setAttribute('aria-label', `Remove phone +${msisdn}`);
    phone.nodes.reply.setAttribute('aria-label', `Reply on +${msisdn}`);
    phone.nodes.smsText.setAttribute('aria-label', `SMS text from +${msisdn}`);
    phone.nodes.dial.setAttribute('aria-label', `Dial from +${msisdn}`);
    phone.nodes.hangup.setAttribute('aria-label', `Cancel (hang up) on +${msisdn}`);
    q('.composer button').setAttribute('aria-label', `Send SMS from +${msisdn}`);
    phone.nodes.prompt.setAttribute('aria-label', `Payment request on +${msisdn}`);
    phone.nodes.approve.setAttribute('aria-label', `Approve payment on +${msisdn}`);
    phone.nodes.decline.setAttribute('aria-label', `Decline payment on +${msisdn}`);
    phone.nodes.approve.addEventListener('click', () => void answerPrompt(phone, 'approve'));
    phone.nodes.decline.addEventListener('click', () => void answerPrompt(phone, 'decline'));

    node.addEventListener('focusin', () => select(phone));
    node.addEventListener('click', () => select(phone));
    phone.nodes.dial.addEventListener('click', () => void dial(phone));
    phone.nodes.hangup.addEventListener('click', () => void hangUp(phone));
    q('.keypad').addEventListener('submit', (event) => {
      event.preventDefault();
      void (phone.session ? reply(phone) : dial(phone));
    });
    // Enter dials an idle handset and sends otherwise (a form with its Send disabled would not submit).
    phone.nodes.reply.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') void hangUp(phone);
      if (event.key === 'Enter') {
        event.preventDefault();
        if (phone.node.getAttribute('aria-busy') !== 'true')
          void (phone.session ? reply(phone) : dial(phone));
      }
    });
    q('.composer').addEventListener('submit', (event) => {
      event.preventDefault();
      void sendSms(phone);
    });
    const makeAgent = q('.make-agent');
    makeAgent.hidden = !state.config.agents;
    makeAgent.setAttribute('aria-label', `Make +${msisdn} an agent`);
    makeAgent.addEventListener('click', () => void registerAgent(phone, q('.agent-note')));
    q('.remove').addEventListener('click', (event) => {
      event.stopPropagation();
      state.phones = state.phones.filter((p) => p !== phone);
      node.remove();
      if (state.selected === phone) select(state.phones[0] ?? null);
    });
    el('phones').append(node);
    state.phones.push(phone);
    showIdle(phone);
    if (!state.selected) select(phone);
    void refreshInbox(phone);
    if (state.config.payments) void answerByHand(phone);
  }

  function select(phone) {
    if (state.selected === phone) return;
    state.selected = phone;
    for (const p of state.phones) p.node.classList.toggle('selected', p === phone);
  }

  function showIdle(phone, note = '') {
    phone.nodes.kind.textContent = 'IDLE';
    phone.nodes.kind.className = 'kind idle';
    phone.nodes.counter.textContent = '';
    phone.nodes.text.textContent = note || `Press Dial to call ${el('service-code').value}`;
    phone.nodes.text.classList.remove('error');
    setKeys(phone);
  }

  function setKeys(phone) {
    const live = phone.session !== null;
    phone.nodes.dial.disabled = live;
    phone.nodes.send.disabled = !live;
    phone.nodes.hangup.disabled = !live;
    phone.node.classList.toggle('live', live);
  }

  /** Every answer (screen or error) bumps `data-replies`: what tests and assistive tools can wait on. */
  function answered(phone) {
    phone.node.dataset.replies = String(Number(phone.node.dataset.replies ?? '0') + 1);
  }

  function showScreen(phone, name, screen) {
    const limit = aggregatorInfo(name).screenLimit;
    const { encoding, length } = measure(screen.text);
    phone.nodes.kind.textContent = screen.end ? 'END' : 'CON';
    phone.nodes.kind.className = `kind ${screen.end ? 'end' : 'con'}`;
    phone.nodes.counter.textContent = `${length}/${limit} ${encoding === 'GSM-7' ? 'septets · GSM-7' : 'chars · UCS-2'}`;
    phone.nodes.counter.classList.toggle('over', length > limit);
    phone.nodes.text.textContent = screen.text;
    phone.nodes.text.classList.remove('error');
  }

  function showError(phone, message) {
    phone.nodes.kind.textContent = 'ERROR';
    phone.nodes.kind.className = 'kind error';
    phone.nodes.counter.textContent = '';
    phone.nodes.text.textContent = message;
    phone.nodes.text.classList.add('error');
  }

  /** Play one request of the dialogue and show what the phone gets. */
  async function play(phone, build) {
    const session = phone.session;
    const format = formatOf(session.aggregator);
    phone.node.setAttribute('aria-busy', 'true');
    try {
      const response = await sendWire(phone, session.aggregator, build(format, session));
      if (response.status !== 200) {
        // A refused request (400 names the field, 401/403 the guard): the network would drop the call.
        phone.session = null;
        showError(phone, `HTTP ${response.status}: ${response.body || 'refused'}`);
        return;
      }
      const screen = format.read(response.body, response.headers);
      session.hops += 1;
      showScreen(phone, session.aggregator, screen);
      if (screen.end) phone.session = null;
    } catch (error) {
      phone.session = null;
      showError(phone, `No answer: ${error.message}`);
    } finally {
      answered(phone);
      phone.node.removeAttribute('aria-busy');
      setKeys(phone);
      phone.nodes.reply.focus();
    }
  }

  async function dial(phone) {
    const aggregator = el('aggregator').value;
    const serviceCode = el('service-code').value.trim() || '*384#';
    if (!formatOf(aggregator)) return status(`No format for ${aggregator}.`, true);
    phone.session = { id: newId('sim'), msisdn: phone.msisdn, serviceCode, inputs: [], hops: 0, aggregator };
    phone.nodes.reply.value = '';
    setKeys(phone);
    await play(phone, (format, s) => format.start(s));
  }

  async function reply(phone) {
    const input = phone.nodes.reply.value.trim();
    phone.nodes.reply.value = '';
    await play(phone, (format, s) => {
      const request = format.next(s, input);
      s.inputs.push(input);
      return request;
    });
  }

  async function hangUp(phone) {
    const session = phone.session;
    if (!session) return;
    phone.session = null;
    const format = formatOf(session.aggregator);
    if (!format.hangUp) {
      showIdle(phone, `Hung up. ${format.label} sends no end notification: the gateway's session times out.`);
      return;
    }
    try {
      const response = await sendWire(phone, session.aggregator, format.hangUp(session));
      showIdle(
        phone,
        response.status === 200
          ? `Hung up: ${format.label}'s end notification was sent (HTTP 200). Dial again to resume.`
          : `Hung up, but the end notification was refused: HTTP ${response.status} ${response.body}`,
      );
    } catch (error) {
      showIdle(phone, `Hung up; the end notification got no answer: ${error.message}`);
    }
  }

  /** A demo float agent (embedded sandbox only): its one-time PIN is shown here, once. */
  async function registerAgent(phone, note) {
    const agent = await dev('/dev/simulator/agents', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: phone.msisdn }),
    });
    if (!agent) return;
    note.hidden = false;
    note.textContent =
      (agent.float ? `Agent with a float of ${agent.float}. ` : 'Already an agent: a fresh PIN. ') +
      `One-time PIN ${agent.oneTimePin}: dial, enter it, then choose your own PIN.`;
  }

  // --- SMS ------------------------------------------------------------------------------------
  async function sendSms(phone) {
    const text = phone.nodes.smsText.value.trim();
    if (!text) return;
    const format = INBOUND[el('inbound').value];
    const wire = format.build(newId('simsms'), phone.msisdn, el('short-code').value.trim() || '12345', text);
    const headers = {};
    const key = el('sms-key').value;
    if (key) headers['X-Callback-Key'] = key;
    let body;
    if (wire.form) {
      body = new URLSearchParams(wire.form);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else {
      body = JSON.stringify(wire.json);
      headers['content-type'] = 'application/json';
    }
    try {
      const response = await fetch(`/sms/${el('inbound').value}`, { method: 'POST', headers, body });
      const answer = await response.text();
      phone.nodes.smsStatus.textContent =
        response.status === 200 ? `Sent “${text}”: ${answer}` : `Refused: HTTP ${response.status} ${answer}`;
      if (response.status === 200) phone.nodes.smsText.value = '';
    } catch (error) {
      phone.nodes.smsStatus.textContent = `Not sent: ${error.message}`;
    }
    void refreshInbox(phone);
  }

  async function refreshInbox(phone) {
    const body = await dev(`/dev/sms?to=${phone.msisdn}&limit=20`);
    if (!body) return;
    const seen = body.messages.map((m) => m.id).join(',');
    if (seen === phone.inboxSeen) return;
    phone.inboxSeen = seen;
    phone.nodes.smsCount.textContent = body.messages.length ? `(${body.messages.length})` : '';
    phone.nodes.inbox.replaceChildren(
      ...body.messages.map((m) => {
        const item = document.createElement('li');
        const meta = document.createElement('div');
        meta.className = 'meta';
        const time = new Date(m.createdAt);
        meta.textContent = `${time.toLocaleTimeString()} · ${m.encoding} · ${m.parts} part${m.parts === 1 ? '' : 's'}${m.from ? ` · from ${m.from}` : ''}`;
        const text = document.createElement('p');
        text.className = 'message';
        text.textContent = m.message;
        item.append(meta, text);
        return item;
      }),
    );
    if (body.messages.length === 0) {
      const empty = document.createElement('li');
      empty.className = 'muted empty';
      empty.textContent = 'No SMS yet.';
      phone.nodes.inbox.append(empty);
    }
  }

  // --- Payment prompts (the embedded payment sandbox) -------------------------------------------
  /** This phone answers its pushes on the handset (unless it is a scripted test payer). */
  async function answerByHand(phone) {
    await dev('/dev/simulator/payments/manual', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ msisdn: phone.msisdn }),
    });
    await refreshPrompt(phone);
  }

  /** The oldest push waiting on this phone, shown over the handset's keys with Approve/Decline. */
  async function refreshPrompt(phone) {
    const body = await dev(`/dev/simulator/payments/prompts?msisdn=${phone.msisdn}`);
    if (!body) return;
    const prompt = body.prompts[0] ?? null;
    phone.promptId = prompt ? prompt.id : null;
    phone.nodes.prompt.hidden = !prompt;
    phone.nodes.promptText.textContent = prompt ? prompt.text : '';
    phone.node.dataset.prompt = prompt ? prompt.id : '';
  }

  async function answerPrompt(phone, answer) {
    const id = phone.promptId;
    if (!id) return;
    phone.nodes.approve.disabled = phone.nodes.decline.disabled = true;
    const row = await dev(`/dev/simulator/payments/prompts/${encodeURIComponent(id)}/${answer}`, {
      method: 'POST',
    });
    phone.nodes.approve.disabled = phone.nodes.decline.disabled = false;
    if (row)
      status(`+${phone.msisdn}: payment ${answer === 'approve' ? 'approved' : 'declined'} (${row.amount}).`);
    await Promise.all([refreshPrompt(phone), refreshPayments()]);
  }

  async function refreshPayments() {
    const body = await dev('/dev/simulator/payments');
    if (!body) return;
    const tbody = el('payments-ledger').tBodies[0];
    tbody.replaceChildren(
      ...body.payments.map((p) => {
        const tr = document.createElement('tr');
        for (const value of [p.status, `+${p.msisdn}`, p.amount, p.refundedAmount]) {
          const td = document.createElement('td');
          td.textContent = value;
          tr.append(td);
        }
        tr.className = String(p.status).toLowerCase();
        tr.title = `${p.wire} ${p.id}${p.receipt ? ` · receipt ${p.receipt}` : ''}`;
        return tr;
      }),
    );
    if (body.payments.length === 0) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = 4;
      td.className = 'muted';
      td.textContent = 'No payments yet.';
      tr.append(td);
      tbody.append(tr);
    }
  }

  // --- Sandbox panel --------------------------------------------------------------------------
  const QUICK_FAULTS = [
    { label: 'Confirm times out (504)', endpoint: 'confirm', fault: 'provider_timeout' },
    { label: 'Confirm unavailable (502)', endpoint: 'confirm', fault: 'provider_unavailable' },
    { label: 'Confirm drops the line', endpoint: 'confirm', fault: 'drop' },
    { label: 'Validate fails (500)', endpoint: 'validate', fault: 'internal_error' },
    { label: 'Confirm slow (2 s)', endpoint: 'confirm', fault: 'slow' },
  ];

  async function loadScenarios() {
    const rows = await dev('/dev/simulator/sandbox/scenarios');
    if (!rows) return;
    const items = rows.map((row) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'scenario';
      button.dataset.identifier = row.identifier;
      const id = document.createElement('code');
      id.textContent = row.identifier;
      const tag = document.createElement('span');
      tag.className = `tag ${row.productType.toLowerCase()}`;
      tag.textContent = `${row.productType.toLowerCase()} · ${row.scenario}`;
      const description = document.createElement('span');
      description.className = 'description';
      description.textContent = row.description;
      button.append(id, tag, description);
      button.addEventListener('click', () => useIdentifier(row.identifier));
      item.append(button);
      return item;
    });
    el('scenarios').replaceChildren(...items);
  }

  /** Type a test identifier on the selected phone, as its subscriber would. */
  function useIdentifier(identifier) {
    const phone = state.selected ?? state.phones[0];
    if (!phone) return;
    const target = phone.session ? phone.nodes.reply : phone.nodes.smsText;
    target.value = phone.session ? identifier : `${target.value.trim()} ${identifier}`.trim();
    target.focus();
    status(`${identifier} typed on +${phone.msisdn}${phone.session ? ': press Send' : ' (SMS text)'}.`);
  }

  async function arm(fault) {
    const armed = await dev('/dev/simulator/sandbox/faults', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(fault),
    });
    if (armed)
      status(
        `Armed: the next ${armed.remaining > 1 ? `${armed.remaining} calls` : 'call'} of ${armed.endpoint} → ${armed.fault}.`,
      );
    await refreshFaults();
  }

  async function refreshFaults() {
    const faults = await dev('/dev/simulator/sandbox/faults');
    if (!faults) return;
    const list = Array.isArray(faults)
      ? faults
      : Object.entries(faults).flatMap(([endpoint, v]) =>
          (Array.isArray(v) ? v : [v]).map((f) => ({ endpoint, ...f })),
        );
    el('armed').replaceChildren(
      ...list.map((f) => {
        const item = document.createElement('li');
        item.textContent = `${f.endpoint}: ${f.fault} × ${f.remaining}${f.completes ? ' (completes)' : ''}`;
        return item;
      }),
    );
  }

  async function refreshLedger() {
    const rows = await dev('/dev/simulator/sandbox/transactions?limit=10');
    if (!rows) return;
    const body = el('ledger').tBodies[0];
    body.replaceChildren(
      ...rows.map((r) => {
        const tr = document.createElement('tr');
        const cells = [
          r.status,
          `${r.product_type.toLowerCase()} ${r.subscriber_identifier}`,
          r.total,
          r.token ?? (r.failure ? `${r.failure.code ?? r.failure}` : ''),
        ];
        for (const value of cells) {
          const td = document.createElement('td');
          td.textContent = typeof value === 'string' ? value : JSON.stringify(value);
          tr.append(td);
        }
        tr.className = String(r.status).toLowerCase();
        tr.title = `${r.reference ?? r.id} · ${r.created_at ?? ''}`;
        return tr;
      }),
    );
    if (rows.length === 0) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = 4;
      td.className = 'muted';
      td.textContent = 'No transactions yet.';
      tr.append(td);
      body.append(tr);
    }
  }

  // --- Start ----------------------------------------------------------------------------------
  function fillSelect(select, entries) {
    select.replaceChildren(
      ...entries.map(([value, label]) => {
        const option = document.createElement('option');
        option.value = value;
        option.textContent = label;
        return option;
      }),
    );
  }

  function settingsChanged() {
    const name = el('aggregator').value;
    const info = aggregatorInfo(name);
    el('ussd-key-label').hidden = !info.keyRequired;
    el('comviva-label').hidden = !(name === 'comviva' && state.config.comvivaCredentials);
    for (const phone of state.phones) if (!phone.session) showIdle(phone);
  }

  async function start() {
    const config = await dev('/dev/simulator/config');
    if (!config) {
      // The admin token may be missing: try again once it is typed.
      el('admin-token').addEventListener('change', () => void start(), { once: true });
      return;
    }
    state.config = config;
    fillSelect(
      el('aggregator'),
      config.aggregators.map((a) => [
        a.name,
        formatOf(a.name)
          ? `${formatOf(a.name).label} · ${a.screenLimit} per screen`
          : `${a.name} (no simulator format yet)`,
      ]),
    );
    // An aggregator the gateway serves but this page cannot speak yet is listed, not offered.
    for (const option of el('aggregator').options) option.disabled = !formatOf(option.value);
    fillSelect(
      el('inbound'),
      config.inbound.filter((i) => INBOUND[i.path]).map((i) => [i.path, INBOUND[i.path].label]),
    );
    el('sms-key-label').hidden = !config.smsKeyRequired;
    for (const id of ['aggregator', 'service-code']) el(id).addEventListener('change', settingsChanged);
    el('settings').addEventListener('submit', (event) => event.preventDefault());
    el('add-phone').addEventListener('submit', (event) => {
      event.preventDefault();
      const number = el('new-number').value.replace(/[^0-9]/g, '');
      if (!/^[1-9][0-9]{6,14}$/.test(number))
        return status('A phone number is 7 to 15 digits with its country code (26774567890).', true);
      el('new-number').value = '';
      addPhone(number, '');
    });
    for (const p of DEFAULT_PHONES) addPhone(p.msisdn, p.label);
    settingsChanged();
    el('payments-panel').hidden = !config.payments;
    if (config.payments) await refreshPayments();

    if (config.sandbox) {
      el('fault-buttons').replaceChildren(
        ...QUICK_FAULTS.map((f) => {
          const button = document.createElement('button');
          button.type = 'button';
          button.textContent = f.label;
          button.addEventListener(
            'click',
            () => void arm({ endpoint: f.endpoint, fault: f.fault, count: 1 }),
          );
          return button;
        }),
      );
      el('fault-form').addEventListener('submit', (event) => {
        event.preventDefault();
        const form = new FormData(event.target);
        void arm({
          endpoint: form.get('endpoint'),
          fault: form.get('fault'),
          count: Number(form.get('count')) || 1,
        });
      });
      el('clear-faults').addEventListener('click', async () => {
        if (await dev('/dev/simulator/sandbox/faults', { method: 'DELETE' })) status('Faults cleared.');
        await refreshFaults();
      });
      await Promise.all([loadScenarios(), refreshLedger(), refreshFaults()]);
    } else {
      el('sandbox-off').hidden = false;
      el('sandbox-panel').hidden = true;
    }
    status('Ready: choose a phone, press Dial.');
    poll();
  }

  /** The inboxes and the ledger refresh by themselves (one round at a time, never piling up). */
  function poll() {
    setTimeout(async () => {
      await Promise.all(state.phones.map(refreshInbox));
      if (state.config.sandbox) await Promise.all([refreshLedger(), refreshFaults()]);
      if (state.config.payments) await Promise.all([...state.phones.map(refreshPrompt), refreshPayments()]);
      poll();
    }, 1500);
  }

  document.addEventListener('DOMContentLoaded', () => void start());
})();
