import { assign, setup } from 'xstate';
import {
  fromService,
  RESUMABLE_TAG,
  SETTLED_TAG,
  type DialogueEvent,
  type DialogueInput,
  type Screen,
} from '../../src/ussd/engine/dialogue';

/**
 * A small dialogue that follows the engine contract (src/ussd/engine/dialogue.ts): a menu, a
 * free-text state, a state that invokes a slow promise actor (and settles on a retry screen on
 * TIMEOUT), a state whose actor never settles and ignores TIMEOUT, a 15-option menu with long
 * labels, a language switch and a final state.
 */
export interface TestServices {
  /** Counts real invocations: replays and page turns must not add to it. */
  lookups: number;
  /** Counts how often the machine decided the choice of the slow lookup (a step computed). */
  slowChosen?: number;
  lookup(): Promise<string>;
  never(): Promise<string>;
}

interface Ctx {
  screen: Screen;
  language: string;
  result: string;
  /** Alike in every dialogue, as a catalogue is: the engine may store it apart (`TEST_SHARED`). */
  shelf: { greeting: string; items: string[] };
}

/** The context field the engine tests store once per content. */
export const TEST_SHARED = ['shelf'] as const;

const menu: Screen = {
  body: [{ key: 'menu.title' }],
  options: [
    { id: 'slow', label: { literal: 'Slow lookup' } },
    { id: 'name', label: { literal: 'Your name' } },
    { id: 'long', label: { literal: 'Long list' } },
    { id: 'stubborn', label: { literal: 'Stubborn' } },
    { id: 'lang', label: { key: 'menu.language' } },
    { id: 'bye', label: { literal: 'Goodbye' } },
    { id: 'pin', label: { literal: 'PIN' } },
  ],
};

export const LONG_OPTIONS = Array.from({ length: 15 }, (_, i) => ({
  id: `item:${i + 1}`,
  label: { literal: `Option number ${i + 1} with a rather long descriptive label` },
}));

const screens = {
  menu,
  name: { body: [{ literal: 'Enter your name:' }], expectsText: true, back: true, home: true } as Screen,
  long: { body: [{ literal: 'Pick one:' }], options: LONG_OPTIONS, back: true, home: true } as Screen,
  retry: {
    body: [{ key: 'error.timeout' }],
    options: [{ id: 'retry', label: { literal: 'Try again' } }],
    home: true,
  } as Screen,
};

export function createTestMachine(services: TestServices) {
  return setup({
    types: { context: {} as Ctx, events: {} as DialogueEvent, input: {} as DialogueInput },
    actors: {
      lookup: fromService(async () => {
        services.lookups += 1;
        return services.lookup();
      }),
      never: fromService(() => services.never()),
    },
  }).createMachine({
    id: 'test-dialogue',
    context: ({ input }) => ({
      screen: menu,
      language: input.language,
      result: '',
      shelf: { greeting: 'Hello', items: LONG_OPTIONS.map((o) => o.id) },
    }),
    initial: 'menu',
    on: {
      HOME: { target: '.menu' },
    },
    states: {
      menu: {
        tags: [SETTLED_TAG],
        entry: assign({ screen: menu }),
        on: {
          CHOOSE: [
            {
              guard: ({ event }) => {
                if (event.optionId !== 'slow') return false;
                services.slowChosen = (services.slowChosen ?? 0) + 1;
                return true;
              },
              target: 'slow',
            },
            { guard: ({ event }) => event.optionId === 'name', target: 'name' },
            { guard: ({ event }) => event.optionId === 'long', target: 'long' },
            { guard: ({ event }) => event.optionId === 'stubborn', target: 'stubborn' },
            {
              guard: ({ event }) => event.optionId === 'lang',
              actions: assign({
                language: ({ context }) => (context.language.startsWith('tn') ? 'en-BW' : 'tn-BW'),
              }),
              target: 'menu',
              reenter: true,
            },
            { guard: ({ event }) => event.optionId === 'bye', target: 'bye' },
            { guard: ({ event }) => event.optionId === 'pin', target: 'pin' },
          ],
        },
      },
      /** A secret input: the machine checks it and keeps only the verdict. */
      pin: {
        tags: [SETTLED_TAG],
        entry: assign({
          screen: { body: [{ literal: 'Enter your PIN:' }], expectsText: true, secret: true, home: true },
        }),
        on: {
          TEXT: {
            target: 'pinChecked',
            actions: assign({ result: ({ event }) => (event.text === '2468' ? 'PIN ok' : 'PIN wrong') }),
          },
        },
      },
      pinChecked: {
        tags: [SETTLED_TAG],
        entry: assign({
          screen: ({ context }) => ({
            body: [{ literal: context.result }],
            options: [{ id: 'more', label: { literal: 'More' } }],
          }),
        }),
        on: { CHOOSE: 'menu' },
      },
      name: {
        tags: [SETTLED_TAG, RESUMABLE_TAG],
        entry: assign({ screen: screens.name }),
        on: {
          BACK: 'menu',
          TEXT: {
            target: 'greeted',
            actions: assign({ result: ({ event }) => event.text }),
          },
        },
      },
      greeted: {
        tags: [SETTLED_TAG],
        type: 'final',
        entry: assign({
          screen: ({ context }) => ({
            body: [{ literal: `${context.shelf.greeting} ${context.result}` }],
            final: true,
          }),
        }),
      },
      long: {
        tags: [SETTLED_TAG],
        entry: assign({ screen: screens.long }),
        on: {
          BACK: 'menu',
          CHOOSE: {
            target: 'picked',
            actions: assign({ result: ({ event }) => event.optionId }),
          },
        },
      },
      picked: {
        tags: [SETTLED_TAG],
        entry: assign({
          screen: ({ context }) => ({
            body: [{ literal: `Picked ${context.result}` }],
            back: true,
            home: true,
          }),
        }),
        on: { BACK: 'long' },
      },
      slow: {
        invoke: {
          src: 'lookup',
          onDone: { target: 'result', actions: assign({ result: ({ event }) => event.output }) },
          onError: 'retry',
        },
        on: { TIMEOUT: 'retry' },
      },
      result: {
        tags: [SETTLED_TAG],
        entry: assign({
          screen: ({ context }) => ({
            body: [{ literal: `Result: ${context.result}` }],
            back: true,
            home: true,
          }),
        }),
        on: { BACK: 'menu' },
      },
      retry: {
        tags: [SETTLED_TAG],
        entry: assign({ screen: screens.retry }),
        on: { CHOOSE: 'slow' },
      },
      stubborn: {
        invoke: { src: 'never', onDone: 'menu' },
      },
      bye: {
        type: 'final',
        entry: assign({ screen: { body: [{ literal: 'Goodbye' }], final: true } }),
      },
    },
  });
}
