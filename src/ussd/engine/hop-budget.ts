/**
 * The hop's time budget as a race: what the caller is answered by then, whatever the store does.
 * Apart from engine.ts so the one rule of the budget has one home.
 */

/** The whole hop overran its budget (a store that does not answer). */
export class BudgetExceededError extends Error {
  constructor() {
    super('hop exceeded its budget');
  }
}

/**
 * The whole hop — lock wait, machine, save and unlock — answers within the budget: past it the
 * hop goes on in the background (its save still lands) and the caller gets `interrupted`.
 */
export function withinBudget<T>(work: Promise<T>, started: number, budgetMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_resolve, reject) => {
    const left = started + budgetMs - Date.now();
    timer = setTimeout(() => reject(new BudgetExceededError()), Math.max(0, left));
  });
  work.catch(() => undefined); // a late failure of the abandoned hop is not unhandled
  return Promise.race([work, overrun]).finally(() => clearTimeout(timer));
}
