/**
 * How the Actions runner reads workflow commands from a step's output (actions/runner,
 * src/Runner.Common/ActionCommand.cs, TryParseV2 then TryParse), as a test oracle. It is stricter
 * than the runner on one point: any command name counts, registered or not, because
 * `::stop-commands::<token>` makes an arbitrary name a command.
 */
export interface ParsedCommand {
  form: 'v2' | 'v1';
  name: string;
  properties: Record<string, string>;
  data: string;
}

/** The runner reads lines: .NET's ReadLine ends a line at CR, LF or CRLF. */
export function runnerLines(output: string): string[] {
  const lines = output.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export function parseRunnerCommand(line: string): ParsedCommand | undefined {
  return parseV2(line) ?? parseV1(line);
}

function parseV2(line: string): ParsedCommand | undefined {
  // .NET TrimStart trims Char.IsWhiteSpace, which also holds U+0085; JS \s does not.
  const message = line.replace(/^[\s\u0085]+/u, '');
  if (!message.startsWith('::')) return undefined;
  const end = message.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const name = space < 0 ? info : info.slice(0, space);
  if (name === '') return undefined;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const pair of info
      .slice(space + 1)
      .trim()
      .split(',')
      .filter(Boolean)) {
      const eq = pair.indexOf('=');
      if (eq > 0 && eq < pair.length - 1)
        properties[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
    }
  }
  return { form: 'v2', name, properties, data: unescapeData(message.slice(end + 2)) };
}

function parseV1(line: string): ParsedCommand | undefined {
  const prefix = line.indexOf('##[');
  if (prefix < 0) return undefined;
  const close = line.indexOf(']', prefix);
  if (close < 0) return undefined;
  const info = line.slice(prefix + 3, close);
  const space = info.indexOf(' ');
  const name = space < 0 ? info : info.slice(0, space);
  if (name === '') return undefined;
  return { form: 'v1', name, properties: {}, data: line.slice(close + 1) };
}

function unescapeData(s: string): string {
  return s.replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%');
}

function unescapeProperty(s: string): string {
  return s
    .replaceAll('%0D', '\r')
    .replaceAll('%0A', '\n')
    .replaceAll('%3A', ':')
    .replaceAll('%2C', ',')
    .replaceAll('%25', '%');
}

/** Captures what `fn` writes to process.stdout (where @actions/core issues commands). */
export async function captureStdout(fn: () => unknown): Promise<string> {
  const original = process.stdout.write.bind(process.stdout);
  let captured = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    captured += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  try {
    await fn();
  } finally {
    process.stdout.write = original;
  }
  return captured;
}
