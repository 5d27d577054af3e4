/**
 * The one way tests wait: for an observable condition, polled, bounded in time. No test sleeps
 * to let things settle.
 */
export async function until<T>(
  what: string,
  probe: () => T | Promise<T>,
  options: { timeoutMs?: number; everyMs?: number } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 20));
  }
}
