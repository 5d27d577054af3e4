/**
 * The answer of a settled machine step: its screen on the right page, its state and language for
 * the hop's log line, and the record to save. Pure but for naming the shared context, so the
 * engine's pure path and its locked path answer a step the same way.
 */
import { answerOf, type AnswerSettings, type HopOutcome, type Outcome } from './answer';
import { DialogueError, type DialogueStep } from './dialogue-runner';
import type { PureHop } from './hop-protocol';
import type { SharedContext } from './shared-context';
import type { Turn } from './turn';
import type { Version } from './versions';

/**
 * The answer of a settled step: its screen, on the page the choice was typed on when the machine
 * shows the same list again (`samePage`), else page 1.
 */
export async function stepAnswerOf(
  answers: AnswerSettings,
  sharedContext: SharedContext,
  turn: Turn,
  version: Version,
  step: DialogueStep,
  language: string,
  outcome: Outcome,
  samePage: boolean,
): Promise<PureHop<HopOutcome>> {
  const screen = version.screenOf(step.context);
  if (!screen) throw new DialogueError(new Error('dialogue settled without a screen'));
  const lang = step.context.language ?? language;
  const final = step.done || screen.final === true;
  const shown = turn.record;
  const sameList =
    samePage &&
    shown !== null &&
    !final &&
    sameIds(
      shown.optionIds,
      (screen.options ?? []).map((o) => o.id),
    );
  const stored = final
    ? { snapshot: null }
    : { snapshot: step.persisted, shared: await sharedContext.nameOf(step.shared) };
  const answered = answerOf(
    answers,
    turn,
    version.id,
    { ...stored, language: lang },
    screen,
    outcome,
    sameList ? shown.page : 1,
  );
  answered.answer.state = step.value;
  if (lang !== language) answered.answer.language = lang;
  return answered;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
