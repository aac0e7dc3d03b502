/**
 * JSON.parse with the strictness of Rust's serde_json, for input the gate does not trust:
 * duplicate keys and lone UTF-16 surrogates (from \uD800-style escapes) are errors, nesting is
 * capped, and objects are built without a prototype so `__proto__` is only a key.
 * Grammar is RFC 8259; the error names the byte offset and, where known, the key path.
 */
export class StrictJsonError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly path: readonly (string | number)[],
  ) {
    super(message);
  }
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const MAX_DEPTH = 256;

export function strictParseJson(text: string): JsonValue {
  let pos = 0;
  const path: (string | number)[] = [];

  const error = (message: string): never => {
    throw new StrictJsonError(message, pos, [...path]);
  };
  const skipWhitespace = () => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
  };
  const expect = (literal: string) => {
    if (text.startsWith(literal, pos)) pos += literal.length;
    else error(`expected ${literal} at offset ${pos}`);
  };

  const parseString = (): string => {
    pos++; // opening quote
    let out = '';
    let start = pos;
    for (;;) {
      if (pos >= text.length) error('unterminated string');
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        out += text.slice(start, pos);
        pos++;
        break;
      }
      if (c < 0x20) error(`unescaped control character in string at offset ${pos}`);
      if (c === 0x5c) {
        out += text.slice(start, pos);
        const e = text[pos + 1];
        pos += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            const hex = text.slice(pos, pos + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) error(`bad \\u escape at offset ${pos - 2}`);
            out += String.fromCharCode(parseInt(hex, 16));
            pos += 4;
            break;
          }
          default:
            pos -= 2;
            error(`bad escape at offset ${pos}`);
        }
        start = pos;
        continue;
      }
      pos++;
    }
    if (!out.isWellFormed()) error('string holds a lone UTF-16 surrogate');
    return out;
  };

  const parseNumber = (): number => {
    const match = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(pos, pos + 400));
    if (!match) error(`unexpected character at offset ${pos}`);
    pos += match![0].length;
    const n = Number(match![0]);
    if (!Number.isFinite(n)) error('number out of range');
    return n;
  };

  const parseValue = (depth: number): JsonValue => {
    if (depth > MAX_DEPTH) error(`nesting deeper than ${MAX_DEPTH}`);
    skipWhitespace();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const obj: { [key: string]: JsonValue } = Object.create(null);
      skipWhitespace();
      if (text[pos] === '}') {
        pos++;
        return obj;
      }
      for (;;) {
        skipWhitespace();
        if (text[pos] !== '"') error(`expected a key at offset ${pos}`);
        const key = parseString();
        if (Object.prototype.hasOwnProperty.call(obj, key)) error(`duplicate key ${JSON.stringify(key)}`);
        skipWhitespace();
        expect(':');
        path.push(key);
        obj[key] = parseValue(depth + 1);
        path.pop();
        skipWhitespace();
        if (text[pos] === ',') pos++;
        else if (text[pos] === '}') {
          pos++;
          return obj;
        } else error(`expected , or } at offset ${pos}`);
      }
    }
    if (c === '[') {
      pos++;
      const arr: JsonValue[] = [];
      skipWhitespace();
      if (text[pos] === ']') {
        pos++;
        return arr;
      }
      for (;;) {
        path.push(arr.length);
        arr.push(parseValue(depth + 1));
        path.pop();
        skipWhitespace();
        if (text[pos] === ',') pos++;
        else if (text[pos] === ']') {
          pos++;
          return arr;
        } else error(`expected , or ] at offset ${pos}`);
      }
    }
    if (c === '"') return parseString();
    if (c === 't') return (expect('true'), true);
    if (c === 'f') return (expect('false'), false);
    if (c === 'n') return (expect('null'), null);
    if (c === undefined) error('unexpected end of input');
    return parseNumber();
  };

  const value = parseValue(0);
  skipWhitespace();
  if (pos !== text.length) error(`trailing characters at offset ${pos}`);
  return value;
}

/** Renders a key path the way error lines name fields: `oracle_program[2].reason`. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = String(part);
      out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? (out ? '.' : '') + key : `[${JSON.stringify(key)}]`;
    }
  }
  return out || '(top level)';
}
