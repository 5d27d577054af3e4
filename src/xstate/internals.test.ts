import fs from 'node:fs';
import path from 'node:path';
import { assign, setup, transition, type AnyMachineSnapshot } from 'xstate';
import { fromService, isService } from '../ussd/engine/dialogue';
import {
  doneEvent,
  errorEvent,
  inertScope,
  nextSnapshot,
  promiseCreatorOf,
  spawnedBy,
  stoppedBy,
  type Effect,
} from './internals';

/**
 * The XState internals the code reads (internals.ts: the dialogue runner, the lifecycles'
 * decisions), checked against the installed XState. When this fails after an upgrade, their
 * users must be changed with it — or XState kept at the version pinned in package.json.
 */

it('xstate is pinned to one exact version, the one installed', () => {
  const root = path.resolve(__dirname, '../..');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const installed = JSON.parse(fs.readFileSync(require.resolve('xstate/package.json'), 'utf8')) as {
    version: string;
  };
  expect(pkg.dependencies.xstate).toMatch(/^\d+\.\d+\.\d+$/);
  expect(installed.version).toBe(pkg.dependencies.xstate);
});

describe('the effects a pure step collects, and the events fed back', () => {
  const creator = jest.fn(async ({ input }: { input: { n: number } }) => `answer ${input.n}`);
  const lookup = fromService(creator);
  const machine = setup({
    types: { context: {} as { answer: string; problem: string } },
    actors: { lookup },
  }).createMachine({
    context: { answer: '', problem: '' },
    initial: 'idle',
    states: {
      idle: { on: { GO: 'asking', WAIT: 'waiting' } },
      asking: {
        invoke: {
          id: 'look',
          src: 'lookup',
          input: () => ({ n: 7 }),
          onDone: { target: 'answered', actions: assign({ answer: ({ event }) => event.output }) },
          onError: {
            target: 'answered',
            actions: assign({ problem: ({ event }) => (event.error as Error).message }),
          },
        },
        on: { LEAVE: 'idle' },
      },
      waiting: { after: { 1000: 'idle' } },
      answered: {},
    },
  });

  function stepped() {
    const effects: Effect[] = [];
    const scope = inertScope((effect) => void effects.push(effect));
    const idle = machine.getInitialSnapshot(scope) as AnyMachineSnapshot;
    expect(effects).toEqual([]);
    const asking = machine.transition(idle, { type: 'GO' }, scope) as AnyMachineSnapshot;
    return { effects, scope, asking };
  }

  it('starting an invocation is an xstate.spawnChild effect: its id, unstarted reference, logic and input', () => {
    const { effects, asking } = stepped();
    expect(effects).toHaveLength(1);
    const spawned = spawnedBy(effects[0]);
    expect(spawned).toMatchObject({ id: 'look', input: { n: 7 } });
    expect(spawned!.logic).toBe(lookup);
    expect(isService(spawned!.logic)).toBe(true);
    expect(spawned!.actorRef.id).toBe('look');
    expect(spawned!.actorRef).toBe(asking.children.look);
    expect(stoppedBy(effects[0])).toBeUndefined();
    // Never started by the pure step: the runner calls the promise itself.
    expect(creator).not.toHaveBeenCalled();
    expect(promiseCreatorOf(spawned!.logic)).toBe(creator);
  });

  it('leaving the state is an xstate.stopChild effect naming the child', () => {
    const { effects, scope, asking } = stepped();
    effects.length = 0;
    machine.transition(asking, { type: 'LEAVE' }, scope);
    expect(effects.map((effect) => [effect.type, stoppedBy(effect), spawnedBy(effect)])).toEqual([
      ['xstate.stopChild', 'look', undefined],
    ]);
  });

  it('the done and error events are the ones XState sends a parent', () => {
    const { scope, asking } = stepped();
    const done = machine.transition(
      asking,
      doneEvent('look', 'answer 7') as never,
      scope,
    ) as AnyMachineSnapshot;
    expect(done.value).toBe('answered');
    expect(done.context).toMatchObject({ answer: 'answer 7' });
    const failed = machine.transition(
      asking,
      errorEvent('look', new Error('no route')) as never,
      scope,
    ) as AnyMachineSnapshot;
    expect(failed.value).toBe('answered');
    expect(failed.context).toMatchObject({ problem: 'no route' });
  });

  it('any other effect (a delayed event) is neither a call started nor one stopped', () => {
    const effects: Effect[] = [];
    const scope = inertScope((effect) => void effects.push(effect));
    machine.transition(machine.getInitialSnapshot(scope), { type: 'WAIT' }, scope);
    expect(effects.length).toBeGreaterThan(0);
    for (const effect of effects) {
      expect(spawnedBy(effect)).toBeUndefined();
      expect(stoppedBy(effect)).toBeUndefined();
    }
  });
});

describe('nextSnapshot: a lifecycle decision', () => {
  let initialContexts = 0;
  let effectsRun = 0;
  const lifecycle = setup({
    types: {
      context: {} as { attempts: number; note: string },
      events: {} as { type: 'TRY'; note: string } | { type: 'GIVE_UP' },
    },
    actions: { tell: () => void (effectsRun += 1) },
    guards: { hasRoom: ({ context }) => context.attempts < 2 },
  }).createMachine({
    context: () => {
      initialContexts += 1;
      return { attempts: 0, note: '' };
    },
    initial: 'waiting',
    states: {
      waiting: {
        on: {
          TRY: [
            {
              guard: 'hasRoom',
              target: 'waiting',
              actions: assign({
                attempts: ({ context }) => context.attempts + 1,
                note: ({ event }) => event.note,
              }),
              reenter: true,
            },
            { target: 'spent', actions: 'tell' },
          ],
          GIVE_UP: 'spent',
        },
      },
      spent: { type: 'final' },
    },
  });
  const inState = (value: string, attempts: number) =>
    lifecycle.resolveState({ value, context: { attempts, note: 'before' } });

  it('gives the snapshot XState’s transition() gives, guards and assignments included', () => {
    for (const [snapshot, event] of [
      [inState('waiting', 0), { type: 'TRY', note: 'first' }],
      [inState('waiting', 2), { type: 'TRY', note: 'third' }],
      [inState('waiting', 1), { type: 'GIVE_UP' }],
    ] as const) {
      const [theirs] = transition(lifecycle, snapshot, event);
      const ours = nextSnapshot(lifecycle, snapshot, event);
      expect(ours.value).toEqual(theirs.value);
      expect(ours.context).toEqual(theirs.context);
      expect(ours.status).toBe(theirs.status);
    }
    expect(nextSnapshot(lifecycle, inState('waiting', 0), { type: 'TRY', note: 'x' }).context).toEqual({
      attempts: 1,
      note: 'x',
    });
  });

  it('builds no actor (so no initial state), and carries out no effect', () => {
    initialContexts = 0;
    effectsRun = 0;
    transition(lifecycle, inState('waiting', 2), { type: 'TRY', note: 'x' });
    // What nextSnapshot saves: transition() computes the machine's initial state every call.
    expect(initialContexts).toBe(1);
    initialContexts = 0;
    const spent = nextSnapshot(lifecycle, inState('waiting', 2), { type: 'TRY', note: 'x' });
    expect(spent.value).toBe('spent');
    expect(initialContexts).toBe(0);
    expect(effectsRun).toBe(0);
  });

  it('one scope serves every call: a decision leaves nothing behind for the next', () => {
    const first = nextSnapshot(lifecycle, inState('waiting', 0), { type: 'TRY', note: 'a' });
    const again = nextSnapshot(lifecycle, inState('waiting', 0), { type: 'TRY', note: 'b' });
    expect(first.context).toEqual({ attempts: 1, note: 'a' });
    expect(again.context).toEqual({ attempts: 1, note: 'b' });
  });
});
