import {
  dialogueActors,
  dialogueScreen,
  OPT,
  ussdMachine,
  type DialogueServices,
  type UssdContext,
} from '../../../machines/ussd-session.machine';
import { INPUT, choose, services, text } from '../../../machines/ussd/test-kit';
import { SCRIPTS, play, type Step } from '../../../machines/ussd/test-scripts';
import { assign, setup } from 'xstate';
import { fromService, isService, SETTLED_TAG, type DialogueEvent } from './dialogue';
import {
  DialogueError,
  DialogueRunner,
  DialogueTimeoutError,
  type DialogueStart,
  type DialogueStep,
} from './dialogue-runner';
import { RESUMABLE_TAG } from './dialogue';
import type { AnyStateMachine } from 'xstate';

const NO_DEADLINE = { at: Number.MAX_SAFE_INTEGER, graceMs: 1000, now: Date.now };
const METER = '04123456789';

/** The gateway's machine, its operator problems heard by nobody (the scripts provoke some). */
const machineOver = (svc: DialogueServices) =>
  ussdMachine.provide({ actors: dialogueActors(svc, () => undefined) });

/** A hop run by a runner of its own (the engine keeps one per machine version). */
const runDialogue = (
  machine: AnyStateMachine,
  start: DialogueStart,
  event: DialogueEvent | null,
  deadline: typeof NO_DEADLINE,
  shared: readonly string[] = [],
) => new DialogueRunner(machine, shared).run(start, event, deadline);

/** A hop's step when it calls no service (the zero-call case), else null. */
const stepPurely = (runner: DialogueRunner, start: DialogueStart, event: DialogueEvent) =>
  runner.settledStep(runner.begin(start, event));

/** A step as the engine stores it: through JSON. */
const stored = (step: DialogueStep): unknown => JSON.parse(JSON.stringify(step.persisted));

describe('a hop that calls no service is stepped without an actor', () => {
  it('steps a choice and a typed meter purely; the quote and the Buy call services', async () => {
    const runner = new DialogueRunner(machineOver(services().services));
    const menu = await runner.run({ input: INPUT }, null, NO_DEADLINE);

    const identifier = stepPurely(runner, { snapshot: stored(menu) }, choose(OPT.product('ELECTRICITY')));
    expect(identifier?.value).toBe('identifier');
    const amount = stepPurely(runner, { snapshot: stored(identifier!) }, text(METER));
    expect(amount?.value).toBe('amount');
    // The amount asks for the quote: a service call, so no pure step; its first step goes on.
    const asking = runner.begin({ snapshot: stored(amount!) }, text('100'));
    expect(runner.settledStep(asking)).toBeNull();
    const quote = await runner.finish(asking, NO_DEADLINE);
    expect(quote.value).toBe('quote');
    expect(stepPurely(runner, { snapshot: stored(quote) }, choose(OPT.buy))).toBeNull();
    // The same move without a service to call (a wrong amount) is a pure step.
    const wrong = stepPurely(runner, { snapshot: stored(amount!) }, text('x'));
    expect(wrong?.value).toBe('amount');
    expect(dialogueScreen(wrong!.context as UssdContext)?.body[0]).toEqual({
      key: 'amount.invalid.notNumber',
    });
  });

  it('a step that fails is no pure step, and the hop fails with DialogueError', async () => {
    const runner = new DialogueRunner(machineOver(services().services));
    const menu = await runner.run({ input: INPUT }, null, NO_DEADLINE);
    const broken = { ...(stored(menu) as object), value: 'noSuchState' };
    expect(stepPurely(runner, { snapshot: broken }, choose(OPT.product('ELECTRICITY')))).toBeNull();
    await expect(
      runner.run({ snapshot: broken }, choose(OPT.product('ELECTRICITY')), NO_DEADLINE),
    ).rejects.toBeInstanceOf(DialogueError);
  });

  it('reads a stored snapshot’s tags without an actor', async () => {
    const runner = new DialogueRunner(machineOver(services().services));
    const menu = await runner.run({ input: INPUT }, null, NO_DEADLINE);
    const identifier = stepPurely(runner, { snapshot: stored(menu) }, choose(OPT.product('ELECTRICITY')));
    expect(runner.hasTag(stored(menu), RESUMABLE_TAG)).toBe(false);
    expect(runner.hasTag(stored(identifier!), RESUMABLE_TAG)).toBe(true);
    expect(runner.hasTag({ ...(stored(menu) as object), value: 'noSuchState' }, RESUMABLE_TAG)).toBe(false);
  });

  const plain = SCRIPTS.filter((s) =>
    s.steps.every((step: Step) => !('wait' in step) && step.type !== 'TIMEOUT'),
  );

  // Continued from the stored form (restored), or from the very object persisted, as when the
  // session store remembers the record in process (the snapshot it came from is reused).
  const ways = [
    ['restored', (step: DialogueStep) => stored(step)],
    ['kept in process', (step: DialogueStep) => step.persisted],
  ] as const;
  it.each(ways.flatMap(([way, keep]) => plain.map((s) => [s.name, way, s, keep] as const)))(
    '%s (%s): the engine’s steps match the live actor’s, state and context',
    async (_name, _way, script, keep) => {
      const live = await play(script, false);
      const machine = machineOver(services(script.overrides?.() ?? {}).services);
      const runner = new DialogueRunner(machine);
      let step = await runner.run({ input: INPUT }, null, NO_DEADLINE);
      const seen = [step];
      for (const event of script.steps as DialogueEvent[]) {
        // A finished dialogue ignores what comes after (the live actor too).
        if (!step.done) step = await runner.run({ snapshot: keep(step) }, event, NO_DEADLINE);
        seen.push(step);
      }
      expect(seen.map((s) => ({ state: s.value, done: s.done, context: s.context }))).toEqual(
        live.seen.map((s) => ({ state: s.value, done: s.status === 'done', context: s.context })),
      );
      // Stored as XState itself persists the live actor's snapshot (the engine skips XState's
      // walk of the context for actor references: a dialogue's context holds none).
      expect(seen.map((s) => s.persisted)).toEqual(live.seen.map((s) => machine.getPersistedSnapshot(s)));
    },
  );
});

describe('shared context fields are kept apart from the snapshot', () => {
  const SHARED = ['products', 'settings'] as const;

  it('leaves them out of what is persisted, hands them back as they are, and puts them back to continue', async () => {
    const machine = machineOver(services().services);
    const menu = await runDialogue(machine, { input: INPUT }, null, NO_DEADLINE, SHARED);
    const context = menu.context as unknown as Record<string, unknown>;
    expect(menu.shared).toEqual({ products: context.products, settings: context.settings });
    expect(menu.shared!.products).toBe(context.products);
    const persisted = stored(menu) as { context: Record<string, unknown> };
    expect(persisted.context.products).toBeUndefined();
    expect(persisted.context.settings).toBeUndefined();
    expect(persisted.context.shown).toEqual(context.shown);

    // Continued purely and with a service call (the quote), from the part and from the whole snapshot alike.
    const events = [choose(OPT.product('ELECTRICITY')), text(METER), text('100')];
    let apart: DialogueStep = menu;
    let whole = await runDialogue(machine, { input: INPUT }, null, NO_DEADLINE);
    for (const event of events) {
      const before = JSON.stringify(apart.persisted);
      const start = { snapshot: apart.persisted, shared: apart.shared };
      apart = await runDialogue(machine, start, event, NO_DEADLINE, SHARED);
      // The record read is not written into.
      expect(JSON.stringify(start.snapshot)).toBe(before);
      whole = await runDialogue(machine, { snapshot: stored(whole) }, event, NO_DEADLINE);
      expect(apart.value).toEqual(whole.value);
      expect(apart.context).toEqual(whole.context);
      expect(apart.shared!.products).toBe(menu.shared!.products);
    }
    expect(apart.value).toBe('quote');
  });
});

describe('service calls run by the runner (no live actor)', () => {
  const SETTLED = { tags: [SETTLED_TAG] };

  it('every service of the USSD dialogue (the quote, the Buy among them) is one the engine runs', () => {
    const actors = dialogueActors(services().services, () => undefined);
    expect(Object.keys(actors)).toEqual(expect.arrayContaining(['quote', 'order', 'loadCatalogue']));
    for (const [name, logic] of Object.entries(actors))
      expect([name, isService(logic)]).toEqual([name, true]);
  });
  const soon = (ms: number) => ({ at: Date.now() + ms, graceMs: Math.floor(ms / 2), now: Date.now });

  it('feeds each answer back as XState would: done with its output, the next call with its input', async () => {
    const inputs: unknown[] = [];
    const machine = setup({
      types: { context: {} as { name: string; greeting: string } },
      actors: {
        lookup: fromService(async ({ input }: { input: { id: number } }) => {
          inputs.push(input);
          return `name-${input.id}`;
        }),
        greet: fromService(async ({ input }: { input: { name: string } }) => {
          inputs.push(input);
          return `Hello ${input.name}`;
        }),
      },
    }).createMachine({
      context: { name: '', greeting: '' },
      initial: 'lookup',
      states: {
        lookup: {
          invoke: {
            src: 'lookup',
            input: () => ({ id: 7 }),
            onDone: { target: 'greet', actions: assign({ name: ({ event }) => event.output }) },
          },
        },
        greet: {
          invoke: {
            src: 'greet',
            input: ({ context }) => ({ name: context.name }),
            onDone: { target: 'shown', actions: assign({ greeting: ({ event }) => event.output }) },
          },
        },
        shown: SETTLED,
      },
    });
    const step = await runDialogue(machine, { input: INPUT }, null, NO_DEADLINE);
    expect(step.value).toBe('shown');
    expect(step.context).toMatchObject({ name: 'name-7', greeting: 'Hello name-7' });
    expect(inputs).toEqual([{ id: 7 }, { name: 'name-7' }]);
    expect(step.persisted).toMatchObject({ value: 'shown', children: {} });
  });

  it('a failing call is the machine’s error event, with the error', async () => {
    const machine = setup({
      types: { context: {} as { problem: string } },
      actors: { fail: fromService(async () => Promise.reject(new Error('no route to the service'))) },
    }).createMachine({
      context: { problem: '' },
      initial: 'asking',
      states: {
        asking: {
          invoke: {
            src: 'fail',
            onError: {
              target: 'sorry',
              actions: assign({ problem: ({ event }) => (event.error as Error).message }),
            },
          },
        },
        sorry: SETTLED,
      },
    });
    const step = await runDialogue(machine, { input: INPUT }, null, NO_DEADLINE);
    expect(step.value).toBe('sorry');
    expect(step.context).toMatchObject({ problem: 'no route to the service' });
  });

  it('TIMEOUT at the deadline leaves the call: its signal is aborted and its late answer changes nothing', async () => {
    const signals: AbortSignal[] = [];
    let answer!: (value: string) => void;
    const machine = setup({
      actors: {
        slow: fromService(
          ({ signal }) =>
            new Promise<string>((resolve) => {
              signals.push(signal);
              answer = resolve;
            }),
        ),
      },
    }).createMachine({
      initial: 'asking',
      states: {
        asking: { invoke: { src: 'slow', onDone: 'answered' }, on: { TIMEOUT: 'retry' } },
        answered: SETTLED,
        retry: SETTLED,
      },
    });
    const step = await runDialogue(machine, { input: INPUT }, null, soon(100));
    expect(step.value).toBe('retry');
    expect(signals).toHaveLength(1);
    expect(signals[0].aborted).toBe(true);
    answer('too late');
    await new Promise((resolve) => setImmediate(resolve));
    expect(step.value).toBe('retry');
  });

  it('a call that ignores TIMEOUT too ends the hop with DialogueTimeoutError at the deadline', async () => {
    const machine = setup({
      actors: { never: fromService(() => new Promise<string>(() => undefined)) },
    }).createMachine({ initial: 'asking', states: { asking: { invoke: { src: 'never' } } } });
    await expect(runDialogue(machine, { input: INPUT }, null, soon(60))).rejects.toBeInstanceOf(
      DialogueTimeoutError,
    );
  });

  /** A machine whose one service counts its calls, then goes on to `states`. */
  function counting(states: Parameters<ReturnType<typeof setup>['createMachine']>[0]['states']) {
    const counted = { calls: 0 };
    const machine = setup({
      actors: {
        read: fromService(async () => {
          counted.calls += 1;
          return 'read';
        }),
      },
    }).createMachine({ initial: 'asking', states });
    return { machine, counted };
  }

  it('a step that asks for anything else too (a delayed event) fails the hop before any call is made', async () => {
    const { machine, counted } = counting({
      asking: { invoke: { src: 'read', onDone: 'shown' }, after: { 10000: 'shown' } },
      shown: SETTLED,
    });
    await expect(runDialogue(machine, { input: INPUT }, null, NO_DEADLINE)).rejects.toBeInstanceOf(
      DialogueError,
    );
    expect(counted.calls).toBe(0);
  });

  it('a settled state that calls a service fails the hop (a stored snapshot must hold no running call)', async () => {
    const { machine } = counting({ asking: { tags: [SETTLED_TAG], invoke: { src: 'read' } } });
    await expect(runDialogue(machine, { input: INPUT }, null, NO_DEADLINE)).rejects.toBeInstanceOf(
      DialogueError,
    );
  });

  it('once a call ran, anything else asked for fails the hop: a call is never made twice', async () => {
    const { machine, counted } = counting({
      asking: { invoke: { src: 'read', onDone: 'waiting' } },
      waiting: { after: { 5: 'shown' } },
      shown: SETTLED,
    });
    await expect(runDialogue(machine, { input: INPUT }, null, NO_DEADLINE)).rejects.toBeInstanceOf(
      DialogueError,
    );
    expect(counted.calls).toBe(1);
  });
});
