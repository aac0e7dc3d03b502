import type { FailReason, Verdict } from './schema.js';

/**
 * Compact JSON exactly as Rust's serde_json writes it: `"` and `\` escaped, the five short escapes
 * (\b \f \n \r \t), every other control character below U+0020 as \u00XX in lowercase hex, and
 * everything else, non-ASCII and U+007F included, written as itself in UTF-8.
 * A Rust string cannot hold a lone surrogate, so one here is an error rather than an escape.
 */
export function serdeString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) throw new LoneSurrogateError(i);
      out += value[i]! + value[i + 1]!;
      i++;
      continue;
    }
    if (code >= 0xdc00 && code <= 0xdfff) throw new LoneSurrogateError(i);
    switch (code) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x08:
        out += '\\b';
        break;
      case 0x0c:
        out += '\\f';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      default:
        out += code < 0x20 ? '\\u' + code.toString(16).padStart(4, '0') : value[i];
    }
  }
  return out + '"';
}

export class LoneSurrogateError extends Error {
  constructor(readonly index: number) {
    super(`string holds a lone UTF-16 surrogate at index ${index}, which is not valid Unicode`);
  }
}

function serializeReason(reason: FailReason): string {
  return `{"kind":${serdeString(reason.kind)},"subkind":${serdeString(reason.subkind)},"message":${serdeString(reason.message)}}`;
}

/** The oracle/1 wire form of a verdict, keys in serde's declaration order. */
export function serializeVerdict(verdict: Verdict): string {
  if (verdict.kind === 'pass') {
    return `{"kind":"pass","chain":[${verdict.chain.map(serdeString).join(',')}]}`;
  }
  return `{"kind":"fail","reasons":[${verdict.reasons.map(serializeReason).join(',')}]}`;
}
