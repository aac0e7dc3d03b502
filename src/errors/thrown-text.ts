/**
 * What was thrown, as text. Anything can be thrown, even a value whose conversion to text throws
 * (`{ toString: '' }`), and an error path must not throw in turn: the gate would lose its reason.
 */
export function thrownText(error: unknown): string {
  try {
    const text: unknown = error instanceof Error ? error.message : String(error);
    return typeof text === 'string' ? text : '(a message that is not text)';
  } catch {
    return '(a value that cannot be shown as text)';
  }
}
