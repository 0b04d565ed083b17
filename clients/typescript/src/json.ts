/**
 * JSON answers whose integers are read exactly. Tokens are 64-bit, and `JSON.parse` turns a number
 * past 2^53 into a nearby double: a token read so would be a different token. So the top-level
 * integer members are also taken from the text as written, and tokens are made from that.
 */
export interface JsonAnswer {
  readonly value: Record<string, unknown>;
  /** Top-level members whose value is an integer, as written in the text. */
  readonly integers: ReadonlyMap<string, string>;
}

export function parseAnswer(text: string): JsonAnswer {
  if (text.trim() === '') {
    return { value: {}, integers: new Map() };
  }
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SyntaxError('not a JSON object');
  }
  return { value: value as Record<string, unknown>, integers: topLevelIntegers(text) };
}

/** A member as a bigint: exact from the text, or from a safe JSON number; undefined if neither. */
export function bigintMember(answer: JsonAnswer, name: string): bigint | undefined {
  const raw = answer.integers.get(name);
  if (raw !== undefined) {
    return BigInt(raw);
  }
  const n = answer.value[name];
  return typeof n === 'number' && Number.isSafeInteger(n) ? BigInt(n) : undefined;
}

const WS = /[ \t\r\n]*/y;
const STRING = /"(?:[^"\\]|\\.)*"/y;
const INTEGER = /-?(?:0|[1-9]\d*)(?![.eE\d])/y;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/** Scans an object already known to be valid JSON; gives up (an empty map) on anything unexpected. */
function topLevelIntegers(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let at = skip(text, WS, 0);
  if (text[at] !== '{') {
    return out;
  }
  at = skip(text, WS, at + 1);
  while (at < text.length && text[at] !== '}') {
    const key = match(text, STRING, at);
    if (key === undefined) {
      return new Map();
    }
    at = skip(text, WS, at + key.length);
    if (text[at] !== ':') {
      return new Map();
    }
    at = skip(text, WS, at + 1);
    const integer = match(text, INTEGER, at);
    if (integer !== undefined) {
      out.set(JSON.parse(key) as string, integer);
    }
    const end = valueEnd(text, at);
    if (end < 0) {
      return new Map();
    }
    at = skip(text, WS, end);
    if (text[at] === ',') {
      at = skip(text, WS, at + 1);
    }
  }
  return out;
}

function valueEnd(text: string, at: number): number {
  const c = text[at];
  if (c === '"') {
    const s = match(text, STRING, at);
    return s === undefined ? -1 : at + s.length;
  }
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') {
        const s = match(text, STRING, i);
        if (s === undefined) {
          return -1;
        }
        i += s.length - 1;
      } else if (ch === '{' || ch === '[') {
        depth++;
      } else if (ch === '}' || ch === ']') {
        if (--depth === 0) {
          return i + 1;
        }
      }
    }
    return -1;
  }
  const scalar = match(text, NUMBER, at) ?? match(text, LITERAL, at);
  return scalar === undefined ? -1 : at + scalar.length;
}

function match(text: string, pattern: RegExp, at: number): string | undefined {
  pattern.lastIndex = at;
  const m = pattern.exec(text);
  return m === null ? undefined : m[0];
}

function skip(text: string, pattern: RegExp, at: number): number {
  return at + (match(text, pattern, at)?.length ?? 0);
}

/** The members that carry tokens, wherever they are nested (groups, transactions, multi-reads). */
const TOKEN_MEMBER = /([{,]\s*)"(token|currentToken|fence|previousToken)"(\s*:\s*)(-?\d+)(?=\s*[,}\]])/g;

/**
 * Parses an answer whose tokens sit in nested objects: every integer member named token,
 * currentToken, fence or previousToken becomes its decimal text before parsing, so `exactToken`
 * reads it exactly. Only a member name right after `{` or `,` matches: inside a JSON string a quote
 * is escaped, so a key or value that merely looks like a member is left alone.
 */
export function parseExact(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text.replace(TOKEN_MEMBER, '$1"$2"$3"$4"'));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SyntaxError('not a JSON object');
  }
  return value as Record<string, unknown>;
}

/** A token member of a `parseExact` object as a bigint (0n when absent). */
export function exactToken(o: unknown, name: string): bigint {
  const v = o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[name] : undefined;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) {
    return BigInt(v);
  }
  return typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : 0n;
}
