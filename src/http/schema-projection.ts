// A fast path for Fastify response schemas. Fastify's JSON responses go through
// fast-json-stringify, which keeps only the properties a response schema declares; TOON
// responses must contain the same data. Serializing to JSON and parsing it back does that for
// any schema, but costs more than the TOON encoding itself. For the common schema shapes this
// module copies the same properties in the same order directly, and gives up (so the caller
// falls back to the round trip) whenever the schema or the value needs anything
// fast-json-stringify would do beyond copying: $ref, combinators, defaults, coercions, Dates.
import type { JsonObject, JsonValue } from '../codec/types.js';

/** Copies `value` as fast-json-stringify would emit it; throws {@link UNSUPPORTED_VALUE} when unsure. */
export type Projection = (value: unknown) => JsonValue;

/** Thrown by a projection for a value it cannot reproduce exactly. */
export const UNSUPPORTED_VALUE: unique symbol = Symbol('toonwire.unsupportedValue');

// Keywords that never change what fast-json-stringify writes for a value of the declared type.
const INERT = new Set([
  '$id', '$schema', '$comment', 'title', 'description', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern',
  'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'enum', 'format', 'contentMediaType',
  'contentEncoding', 'xml', 'externalDocs',
]);
const STRUCTURAL = new Set(['type', 'nullable', 'properties', 'required', 'items', 'additionalProperties']);
const SCALARS = new Set(['string', 'integer', 'number', 'boolean', 'null']);

function fail(): never {
  throw UNSUPPORTED_VALUE;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

const scalar: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  integer: (value) => Number.isInteger(value),
  number: (value) => Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
  null: (value) => value === null,
};

function compile(schema: unknown): Projection | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  for (const key of Object.keys(s)) if (!INERT.has(key) && !STRUCTURAL.has(key)) return undefined;
  if (s.format === 'unsafe') return undefined;

  let type = s.type;
  let nullable = s.nullable === true;
  if (Array.isArray(type)) {
    const others = type.filter((t) => t !== 'null');
    if (others.length !== 1 || type.length !== 2) return undefined;
    nullable = true;
    type = others[0];
  }
  if (typeof type !== 'string') return undefined;

  let project: Projection | undefined;
  if (SCALARS.has(type)) {
    const matches = scalar[type]!;
    project = (value) => (matches(value) ? (value as JsonValue) : fail());
  } else if (type === 'array') {
    const item = compile(s.items);
    if (item === undefined) return undefined;
    project = (value) => (Array.isArray(value) ? value.map(item) : fail());
  } else if (type === 'object') {
    project = compileObject(s);
  }
  if (project === undefined) return undefined;
  if (!nullable) return project;
  const inner = project;
  return (value) => (value === null ? null : inner(value));
}

function compileObject(schema: Record<string, unknown>): Projection | undefined {
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined;
  const properties = schema.properties ?? {};
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return undefined;
  const required = schema.required ?? [];
  if (!Array.isArray(required)) return undefined;
  const declared = Object.keys(properties);
  if (declared.includes('__proto__') || required.some((key) => !declared.includes(key))) return undefined;
  // fast-json-stringify writes the required properties first, each group in schema order.
  const order = [...declared.filter((key) => required.includes(key)), ...declared.filter((key) => !required.includes(key))];
  const fields: Array<{ key: string; project: Projection; required: boolean }> = [];
  for (const key of order) {
    const project = compile((properties as Record<string, unknown>)[key]);
    if (project === undefined) return undefined;
    fields.push({ key, project, required: required.includes(key) });
  }
  return (value) => {
    if (!isPlainObject(value)) fail();
    const result: JsonObject = {};
    for (const field of fields) {
      const child = value[field.key];
      // A missing required property is an error fast-json-stringify reports: let it.
      if (child === undefined) {
        if (field.required) fail();
        continue;
      }
      result[field.key] = field.project(child);
    }
    return result;
  };
}

const cache = new WeakMap<object, Projection | null>();

/**
 * A projection for a response schema, or `undefined` when the schema uses anything beyond
 * `type` (one type, optionally with null), `nullable`, `properties`, `required`, `items`
 * (one schema), `additionalProperties: false` and annotation or validation keywords. Compiled
 * once per schema object.
 *
 * @example
 * const project = compileProjection({ type: 'object', properties: { id: { type: 'integer' } } });
 * project?.({ id: 7, passwordHash: 'x' }); // { id: 7 }
 */
export function compileProjection(schema: unknown): Projection | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  let projection = cache.get(schema);
  if (projection === undefined) {
    projection = compile(schema) ?? null;
    cache.set(schema, projection);
  }
  return projection ?? undefined;
}
