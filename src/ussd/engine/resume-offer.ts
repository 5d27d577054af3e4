import type { DialogueRunner } from './dialogue-runner';
import { RESUMABLE_TAG, type DialogueEvent, type LocalText, type Screen } from './dialogue';

/**
 * The resume offer: a caller who dropped part-way into a purchase and dials again within the
 * resume window is asked whether to continue. The offer is the engine's own screen, shown
 * before the stored dialogue takes over again; the machine never sees it.
 */

/** Message keys of the offer. */
export interface ResumeTexts {
  resumePrompt: string;
  resumeYes: string;
  resumeNo: string;
  invalidChoice: string;
}

const YES = 'resume:yes';
const NO = 'resume:no';

/**
 * The offer's screen for a dropped dialogue showing `dropped`: the prompt, then what is being
 * resumed (the `about` line that screen published: product and identifier) so nobody continues
 * a purchase they do not recognise; with a notice (the invalid-choice line) when drawn again.
 */
export function resumeScreen(texts: ResumeTexts, dropped: Screen | undefined, notice?: LocalText): Screen {
  const about = dropped?.about;
  return {
    body: [...(notice ? [notice] : []), { key: texts.resumePrompt }, ...(about ? [about] : [])],
    options: [
      { id: YES, label: { key: texts.resumeYes } },
      { id: NO, label: { key: texts.resumeNo } },
    ],
  };
}

/** The caller's answer to the offer: continue, start afresh, or neither (draw it again). */
export function resumeChoice(
  action: { kind: 'event'; event: DialogueEvent } | { kind: 'page'; page: number },
): 'resume' | 'fresh' | 'invalid' {
  const choice = action.kind === 'event' && action.event.type === 'CHOOSE' ? action.event.optionId : null;
  return choice === YES ? 'resume' : choice === NO ? 'fresh' : 'invalid';
}

/**
 * A dropped dialogue (its `snapshot`, showing `screen`) is worth resuming only part-way into a
 * purchase (see RESUMABLE_TAG), and never from a screen that says `noResume`.
 */
export function isResumable(runner: DialogueRunner, snapshot: unknown, screen: Screen): boolean {
  return screen.noResume !== true && runner.hasTag(snapshot, RESUMABLE_TAG);
}
