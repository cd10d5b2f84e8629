// JSON text for values nested too deep for the rest of the engine. normalize refuses values
// deeper than decode's default maxDepth (TOON could not ship them anyway) and JSON.stringify
// overflows the call stack a few thousand levels down; the picker still owes such a value its
// JSON. This writer keeps its own stack instead of recursing, and follows normalize's rules
// (JSON.stringify's, plus Map, Set and a lossless BigInt), so it writes what
// JSON.stringify(normalize(value)) would if neither had a depth limit.

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A container being written: its entries, the next one to write, and its closing bracket. */
interface Frame {
  keys: string[] | undefined;
  values: unknown[];
  next: number;
  wrote: boolean;
  close: string;
  source: object;
}

/**
 * `JSON.stringify(normalize(value))` for a value of any depth, without recursion.
 *
 * @throws {TypeError} for a circular structure, as JSON.stringify does.
 * @example
 * let deep: unknown = 1;
 * for (let i = 0; i < 20_000; i++) deep = [deep];
 * stringifyDeep(deep).length; // 40001
 */
export function stringifyDeep(value: unknown): string {
  const parts: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  // Writes a scalar, or opens a container (pushing its frame); returns false for a dropped value.
  const write = (input: unknown, key: string): boolean => {
    let item = resolve(input, key);
    switch (typeof item) {
      case 'string':
        parts.push(JSON.stringify(item));
        return true;
      case 'number':
        parts.push(Number.isFinite(item) ? String(item) : 'null');
        return true;
      case 'boolean':
        parts.push(item ? 'true' : 'false');
        return true;
      case 'bigint':
        parts.push(item >= -SAFE && item <= SAFE ? String(item) : JSON.stringify(String(item)));
        return true;
      case 'object': {
        if (item === null) {
          parts.push('null');
          return true;
        }
        if (open.has(item)) {
          throw new TypeError(
            'cannot encode a circular structure: remove the back-reference or give the object a toJSON() that breaks the cycle',
          );
        }
        const container = item;
        open.add(container);
        if (item instanceof Set) item = [...item];
        if (Array.isArray(item)) {
          parts.push('[');
          stack.push({
            keys: undefined,
            values: item,
            next: 0,
            wrote: false,
            close: ']',
            source: container,
          });
        } else if (item instanceof Map) {
          const keys: string[] = [];
          const values: unknown[] = [];
          for (const [k, v] of item) {
            keys.push(String(k));
            values.push(v);
          }
          parts.push('{');
          stack.push({ keys, values, next: 0, wrote: false, close: '}', source: container });
        } else {
          const keys = Object.keys(item as object);
          const record = item as Record<string, unknown>;
          parts.push('{');
          stack.push({
            keys,
            values: keys.map((k) => record[k]),
            next: 0,
            wrote: false,
            close: '}',
            source: container,
          });
        }
        return true;
      }
      default:
        return false;
    }
  };

  if (!write(value, '')) return 'null';
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next === frame.values.length) {
      parts.push(frame.close);
      stack.pop();
      open.delete(frame.source);
      continue;
    }
    const index = frame.next++;
    const key = frame.keys === undefined ? String(index) : frame.keys[index]!;
    const mark = parts.length;
    if (frame.wrote) parts.push(',');
    if (frame.keys !== undefined) parts.push(`${JSON.stringify(key)}:`);
    const wrote = write(frame.values[index], key);
    if (wrote) {
      frame.wrote = true;
    } else if (frame.keys === undefined) {
      parts.push('null');
      frame.wrote = true;
    } else {
      parts.length = mark; // an object drops undefined, functions and symbols
    }
  }
  return parts.join('');
}

/** `toJSON` and boxed primitives, as JSON.stringify applies them before looking at a value. */
function resolve(value: unknown, key: string): unknown {
  let item = value;
  if ((typeof item === 'object' && item !== null) || typeof item === 'bigint') {
    const toJSON = (item as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') item = toJSON.call(item, key);
  }
  if (item instanceof Number || item instanceof String || item instanceof Boolean)
    return item.valueOf();
  return item;
}
