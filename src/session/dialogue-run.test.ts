import { dialogueActors, OPT, ussdMachine, type DialogueServices } from '../../machines/ussd-session.machine';
import { INPUT, choose, services, text } from '../../machines/ussd/test-kit';
import { SCRIPTS, play, type Step } from '../../machines/ussd/test-scripts';
import type { DialogueEvent } from './dialogue';
import { DialogueError, runDialogue, stepPurely, type DialogueStep } from './dialogue-run';

const NO_DEADLINE = { at: Number.MAX_SAFE_INTEGER, graceMs: 1000, now: Date.now };
const METER = '04123456789';

/** The gateway's machine, its operator problems heard by nobody (the scripts provoke some). */
const machineOver = (svc: DialogueServices) =>
  ussdMachine.provide({ actors: dialogueActors(svc, () => undefined) });

/** A step as the engine stores it: through JSON. */
const stored = (step: DialogueStep): unknown => JSON.parse(JSON.stringify(step.persisted));

describe('a hop that calls no service is stepped without an actor', () => {
  it('steps a choice and a typed meter purely; the quote and the Buy need a live actor', async () => {
    const machine = machineOver(services().services);
    const menu = await runDialogue(machine, { input: INPUT }, null, NO_DEADLINE);

    const identifier = stepPurely(machine, { snapshot: stored(menu) }, choose(OPT.product('ELECTRICITY')));
    expect(identifier?.value).toBe('identifier');
    const amount = stepPurely(machine, { snapshot: stored(identifier!) }, text(METER));
    expect(amount?.value).toBe('amount');
    // The amount asks for the quote: a service call, so no pure step (twice: also once it is known).
    expect(stepPurely(machine, { snapshot: stored(amount!) }, text('100'))).toBeNull();
    expect(stepPurely(machine, { snapshot: stored(amount!) }, text('100'))).toBeNull();
    const quote = await runDialogue(machine, { snapshot: stored(amount!) }, text('100'), NO_DEADLINE);
    expect(quote.value).toBe('quote');
    expect(stepPurely(machine, { snapshot: stored(quote) }, choose(OPT.buy))).toBeNull();
    // Once a move is known to call a service it goes straight to the live actor, which also
    // answers the same move when it calls nothing (a wrong amount).
    const wrong = await runDialogue(machine, { snapshot: stored(amount!) }, text('x'), NO_DEADLINE);
    expect(wrong.value).toBe('amount');
    expect(wrong.context.screen?.body[0]).toEqual({ key: 'amount.invalid.notNumber' });
  });

  it('leaves a step that fails to the live actor, whose failure is the one reported', async () => {
    const machine = machineOver(services().services);
    const menu = await runDialogue(machine, { input: INPUT }, null, NO_DEADLINE);
    const broken = { ...(stored(menu) as object), value: 'noSuchState' };
    expect(stepPurely(machine, { snapshot: broken }, choose(OPT.product('ELECTRICITY')))).toBeNull();
    await expect(
      runDialogue(machine, { snapshot: broken }, choose(OPT.product('ELECTRICITY')), NO_DEADLINE),
    ).rejects.toBeInstanceOf(DialogueError);
  });

  const plain = SCRIPTS.filter((s) =>
    s.steps.every((step: Step) => !('wait' in step) && step.type !== 'TIMEOUT'),
  );

  it.each(plain.map((s) => [s.name, s] as const))(
    '%s: the engine’s steps match the live actor’s, state and context',
    async (_name, script) => {
      const live = await play(script, false);
      const machine = machineOver(services(script.overrides?.() ?? {}).services);
      let step = await runDialogue(machine, { input: INPUT }, null, NO_DEADLINE);
      const seen = [step];
      for (const event of script.steps as DialogueEvent[]) {
        // A finished dialogue ignores what comes after (the live actor too).
        if (!step.done) step = await runDialogue(machine, { snapshot: stored(step) }, event, NO_DEADLINE);
        seen.push(step);
      }
      expect(seen.map((s) => ({ state: s.value, done: s.done, context: s.context }))).toEqual(
        live.seen.map((s) => ({ state: s.value, done: s.status === 'done', context: s.context })),
      );
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
    expect(persisted.context.screen).toEqual(context.screen);

    // Continued purely and on a live actor (the quote), from the part and from the whole snapshot alike.
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
