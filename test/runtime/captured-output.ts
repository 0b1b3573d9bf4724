import { vi } from 'vitest';

export interface CapturedOutput {
  /** The JSON lines written so far, parsed; only those whose text contains `containing` when given. */
  jsonLines(containing?: string): Record<string, unknown>[];
  /** Everything written so far, as text. */
  text(): string;
}

/**
 * Captures stdout and stderr (Powertools writes warnings and errors to stderr, the rest to
 * stdout) instead of printing them, until the caller runs vi.restoreAllMocks().
 */
export function captureOutput(): CapturedOutput {
  const written: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
  return {
    text: () => written.join(''),
    jsonLines: (containing) =>
      written
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{') && (containing === undefined || line.includes(containing)))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
