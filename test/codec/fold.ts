// Test helper: builds the value an event stream describes (the reference's event semantics).
import type { JsonStreamEvent, JsonValue } from '../../src/index.js';

/**
 * Folds stream events back into a value, keys set as own data properties (`__proto__` too).
 *
 * @example
 * fold([{ type: 'startArray', length: 1 }, { type: 'primitive', value: 1 }, { type: 'endArray' }]); // [1]
 */
export function fold(events: Iterable<JsonStreamEvent>): JsonValue {
  const stack: (JsonValue[] | Record<string, JsonValue>)[] = [];
  const keys: (string | undefined)[] = [];
  let key: string | undefined;
  let root: JsonValue | undefined;
  const put = (value: JsonValue) => {
    const top = stack[stack.length - 1];
    if (top === undefined) root = value;
    else if (Array.isArray(top)) top.push(value);
    else
      Object.defineProperty(top, key!, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  };
  for (const event of events) {
    switch (event.type) {
      case 'startObject':
      case 'startArray': {
        const container = event.type === 'startObject' ? {} : [];
        put(container);
        keys.push(key);
        stack.push(container);
        break;
      }
      case 'endObject':
      case 'endArray':
        stack.pop();
        key = keys.pop();
        break;
      case 'key':
        key = event.key;
        break;
      default:
        put(event.value);
    }
  }
  return root as JsonValue;
}
