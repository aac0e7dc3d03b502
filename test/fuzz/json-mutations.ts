import fc from 'fast-check';
import { mutatedSeed, printable, randomInput } from './mutations.js';

/**
 * Structure-aware mutations of JSON documents (oracle.json, the flake ledger, the verdict input).
 * A seed becomes a tree whose leaves and keys are raw JSON text, so a mutation can write what no
 * JSON.stringify would: duplicate keys, escaped keys (`"\u0069mage"` is `image`), lone
 * surrogates, 1e309, -0, nesting past any limit. Each mutation picks a node by its pre-order index.
 */

type Node =
  { t: 'obj'; entries: [string, Node][] } | { t: 'arr'; items: Node[] } | { t: 'raw'; text: string };

function fromValue(value: unknown): Node {
  if (Array.isArray(value)) return { t: 'arr', items: value.map(fromValue) };
  if (value !== null && typeof value === 'object')
    return {
      t: 'obj',
      entries: Object.entries(value).map(([k, v]): [string, Node] => [JSON.stringify(k), fromValue(v)]),
    };
  return { t: 'raw', text: JSON.stringify(value) };
}

function serialize(node: Node, pretty: boolean, depth = 0): string {
  const pad = pretty ? '\n' + '  '.repeat(depth + 1) : '';
  const end = pretty ? '\n' + '  '.repeat(depth) : '';
  if (node.t === 'raw') return node.text;
  if (node.t === 'arr')
    return node.items.length === 0
      ? '[]'
      : `[${node.items.map((n) => pad + serialize(n, pretty, depth + 1)).join(',')}${end}]`;
  return node.entries.length === 0
    ? '{}'
    : `{${node.entries.map(([k, v]) => `${pad}${k}:${pretty ? ' ' : ''}${serialize(v, pretty, depth + 1)}`).join(',')}${end}}`;
}

function clone(node: Node): Node {
  if (node.t === 'raw') return { ...node };
  if (node.t === 'arr') return { t: 'arr', items: node.items.map(clone) };
  return { t: 'obj', entries: node.entries.map(([k, v]): [string, Node] => [k, clone(v)]) };
}

/** Every node in pre-order, with a way to replace it in its parent. */
function nodes(root: Node): { node: Node; set: (n: Node) => void }[] {
  const out: { node: Node; set: (n: Node) => void }[] = [];
  const walk = (node: Node, set: (n: Node) => void) => {
    out.push({ node, set });
    if (node.t === 'arr') node.items.forEach((child, i) => walk(child, (n) => (node.items[i] = n)));
    if (node.t === 'obj') node.entries.forEach((entry) => walk(entry[1], (n) => (entry[1] = n)));
  };
  walk(root, () => {});
  return out;
}

const DEEP = 300;

/** Values that break schemas: wrong types, edges of number types, hostile strings. */
export const AWKWARD_JSON: readonly string[] = [
  'null',
  'true',
  'false',
  '0',
  '-0',
  '1',
  '-1',
  '0.5',
  '1.5',
  '2',
  '1000',
  '1e309',
  '-1e309',
  '1e-400',
  '4294967296',
  '9007199254740993',
  '123456789012345678901234567890',
  '""',
  '" "',
  '"\\u0000"',
  '"\\ud800"',
  '"\\udc00x"',
  '"a\\nb"',
  '"\\r"',
  '"\\u202e"',
  '"😀"',
  '"__proto__"',
  '"0"',
  '"1000:1000"',
  '"0:0"',
  '"2g"',
  '"P"',
  '"F"',
  '"PF"',
  '"frozen"',
  '"active"',
  '"always_pass"',
  '"always_fail"',
  '"composite"',
  '[]',
  '{}',
  '[null]',
  '{"__proto__":{"polluted":true}}',
  '['.repeat(DEEP) + ']'.repeat(DEEP),
  '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP),
  `"${'a'.repeat(70_000)}"`,
];

export type JsonEdit =
  | { op: 'drop'; at: number; child: number }
  | { op: 'duplicate'; at: number; child: number; value: number }
  | { op: 'rename'; at: number; child: number; how: number }
  | { op: 'add'; at: number; key: number; value: number }
  | { op: 'replace'; at: number; value: number }
  | { op: 'wrap'; at: number; inArray: boolean }
  | { op: 'tweak'; at: number; how: number };

const index = fc.nat({ max: 0x7fffffff });
const edit: fc.Arbitrary<JsonEdit> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: index, child: index }),
  fc.record({ op: fc.constant('duplicate' as const), at: index, child: index, value: index }),
  fc.record({ op: fc.constant('rename' as const), at: index, child: index, how: index }),
  fc.record({ op: fc.constant('add' as const), at: index, key: index, value: index }),
  { arbitrary: fc.record({ op: fc.constant('replace' as const), at: index, value: index }), weight: 3 },
  fc.record({ op: fc.constant('wrap' as const), at: index, inArray: fc.boolean() }),
  { arbitrary: fc.record({ op: fc.constant('tweak' as const), at: index, how: index }), weight: 2 },
);

/** Near misses of a key: what a typo, a lookalike or an escape makes of it. */
const RENAMES: ((key: string) => string)[] = [
  (k) => k.toUpperCase(),
  (k) => k + ' ',
  (k) => k + 's',
  (k) => k.slice(0, -1),
  (k) => '\u200b' + k,
  (k) => [...k].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  () => '__proto__',
  () => 'constructor',
  () => '',
];

/** Changes to a leaf that keep its type some of the time. */
const TWEAKS: ((text: string) => string)[] = [
  (t) => (/^-?\d/.test(t) ? String(Number(t) + 1) : t),
  (t) => (/^-?\d/.test(t) ? String(Number(t) - 1) : t),
  (t) => (/^-?\d/.test(t) ? `${t}.0` : t),
  (t) => (/^-?\d/.test(t) ? `${t}e0` : t),
  (t) => (/^-?\d/.test(t) ? `-${t}` : t),
  (t) => (/^-?\d/.test(t) ? JSON.stringify(t) : t),
  (t) => (t.startsWith('"') ? t.slice(0, -1) + '\\u0000"' : t),
  (t) => (t.startsWith('"') ? t.slice(0, -1) + ' "' : t),
  (t) => (t.startsWith('"') ? '"' + t.slice(1, 1 + Math.floor((t.length - 2) / 2)) + '"' : t),
  (t) => (t.startsWith('"') ? t.slice(0, -1) + t.slice(1) : t),
  (t) => (t.startsWith('"') ? t.toUpperCase() : t),
  (t) => (t.startsWith('"') ? t.slice(1, -1) : t),
];

function applyEdit(root: Node, e: JsonEdit, keys: readonly string[]): void {
  const all = nodes(root);
  const target = all[e.at % all.length]!;
  const node = target.node;
  const value = (i: number): Node => {
    const awkward = AWKWARD_JSON[i % AWKWARD_JSON.length]!;
    // Half the time, another node of the same document: a plausible value in the wrong place.
    return i % 2 === 0 ? { t: 'raw', text: awkward } : clone(all[(i >> 1) % all.length]!.node);
  };
  switch (e.op) {
    case 'drop':
      if (node.t === 'obj' && node.entries.length) node.entries.splice(e.child % node.entries.length, 1);
      if (node.t === 'arr' && node.items.length) node.items.splice(e.child % node.items.length, 1);
      return;
    case 'duplicate':
      if (node.t === 'obj' && node.entries.length) {
        const [k, v] = node.entries[e.child % node.entries.length]!;
        node.entries.push([k, e.value % 3 === 0 ? clone(v) : value(e.value)]);
      }
      if (node.t === 'arr' && node.items.length)
        node.items.push(clone(node.items[e.child % node.items.length]!));
      return;
    case 'rename':
      if (node.t === 'obj' && node.entries.length) {
        const entry = node.entries[e.child % node.entries.length]!;
        const key = JSON.parse(entry[0]) as string;
        const renamed = RENAMES[e.how % RENAMES.length]!(key);
        entry[0] = renamed.includes('\\u') ? `"${renamed}"` : JSON.stringify(renamed);
      }
      return;
    case 'add':
      if (node.t === 'obj')
        node.entries.push([JSON.stringify(keys[e.key % keys.length] ?? 'x'), value(e.value)]);
      if (node.t === 'arr') node.items.push(value(e.value));
      return;
    case 'replace':
      target.set(value(e.value));
      return;
    case 'wrap':
      target.set(e.inArray ? { t: 'arr', items: [node] } : { t: 'obj', entries: [['"x"', node]] });
      return;
    case 'tweak':
      if (node.t === 'raw') node.text = TWEAKS[e.how % TWEAKS.length]!(node.text);
      return;
  }
}

export interface JsonMutated {
  seed: number;
  edits: JsonEdit[];
  text: string;
}

/** A JSON seed with 1 to 3 structural edits, written compact or pretty. */
export function editedJson(seeds: readonly unknown[], keys: readonly string[]): fc.Arbitrary<JsonMutated> {
  return fc
    .record({
      seed: fc.nat({ max: seeds.length - 1 }),
      edits: fc.array(edit, { minLength: 1, maxLength: 3 }),
      pretty: fc.boolean(),
    })
    .map(({ seed, edits, pretty }) => {
      const root = fromValue(seeds[seed]);
      // The root itself may be replaced: keep it in a holder.
      const holder: Node = { t: 'arr', items: [root] };
      for (const e of edits) applyEdit(holder.items[0]!, { ...e }, keys);
      const text = serialize(holder.items[0]!, pretty);
      return Object.defineProperty({ seed, edits, text }, fc.toStringMethod, {
        value: () =>
          `seed ${seed} edited by ${JSON.stringify(edits)}: ${JSON.stringify(text.slice(0, 2000))}`,
      });
    });
}

/**
 * JSON input for a target: structural edits of the seeds (weight 4), byte-level mutations of their
 * text (weight 2), and random text or bytes (weight 1); as bytes, since files are read as bytes.
 */
export function jsonInput(seeds: readonly unknown[], keys: readonly string[]): fc.Arbitrary<Buffer> {
  const seedBytes = seeds.flatMap((s) => [
    Buffer.from(JSON.stringify(s)),
    Buffer.from(JSON.stringify(s, null, 2) + '\n'),
  ]);
  const tokens = [
    ...keys.map((k) => JSON.stringify(k)),
    ...AWKWARD_JSON.slice(0, -3),
    ':',
    ',',
    '{',
    '}',
    '[',
    ']',
  ].map((t) => Buffer.from(t, 'utf8'));
  return fc.oneof(
    { weight: 4, arbitrary: editedJson(seeds, keys).map((m) => printable(Buffer.from(m.text, 'utf8'))) },
    { weight: 2, arbitrary: mutatedSeed(seedBytes, tokens).map((m) => m.bytes) },
    { weight: 1, arbitrary: randomInput(tokens) },
  );
}

/** JSON.parse, or undefined where it refuses: the reference reading of a text. */
export function nativeParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
