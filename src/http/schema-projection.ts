// A fast path for Fastify response schemas. Fastify's JSON responses go through
// fast-json-stringify, which keeps only the properties a response schema declares; TOON
// responses must contain the same data. Serializing to JSON and parsing it back does that for
// any schema, but costs more than the TOON encoding itself. For the common schema shapes this
// module copies the same properties in the same order directly, and gives up (so the caller
// falls back to the round trip) whenever the schema or the value needs anything
// fast-json-stringify would do beyond copying: $ref, combinators, defaults, coercions. The one
// conversion it makes is the commonest: a Date in a string field, written as its ISO text.
import { isPlainObject } from '../codec/objects.js';
import type { JsonObject, JsonValue } from '../codec/types.js';

/** Copies `value` as fast-json-stringify would emit it; throws {@link UNSUPPORTED_VALUE} when unsure. */
export type Projection = (value: unknown) => JsonValue;

/** Thrown by a projection for a value it cannot reproduce exactly. */
export const UNSUPPORTED_VALUE: unique symbol = Symbol('toonwire.unsupportedValue');

// Keywords that never change what fast-json-stringify writes for a value of the declared type.
const INERT = new Set([
  '$id',
  '$schema',
  '$comment',
  'title',
  'description',
  'examples',
  'example',
  'deprecated',
  'readOnly',
  'writeOnly',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'enum',
  'format',
  'contentMediaType',
  'contentEncoding',
  'xml',
  'externalDocs',
]);
const STRUCTURAL = new Set([
  'type',
  'nullable',
  'properties',
  'required',
  'items',
  'additionalProperties',
]);
const SCALARS = new Set(['string', 'integer', 'number', 'boolean', 'null']);

function fail(): never {
  throw UNSUPPORTED_VALUE;
}

/** Is `value` an object fast-json-stringify writes property by property (no class instance, no toJSON)? */
export function isFieldwiseObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && typeof value.toJSON !== 'function';
}

/** A scalar type a response schema may declare. */
export type ScalarType = 'string' | 'integer' | 'number' | 'boolean' | 'null';

/**
 * What a supported response schema says about a value, with the keywords that do not change
 * the output already dropped: the common ground of the projection and the TOON serializer.
 */
export type SchemaShape = ScalarShape | ArrayShape | ObjectShape;
export interface ScalarShape {
  kind: 'scalar';
  type: ScalarType;
  nullable: boolean;
  /**
   * The schema's `enum`, when it has one. Neither fast-json-stringify nor the projection checks
   * it; the TOON serializer writes the text of its string members without checking their quoting
   * on every response.
   */
  enum?: readonly unknown[];
  /**
   * A string field that writes a Date as `toISOString()` (fast-json-stringify's `asDateTime`, for
   * every `format` but `date` and `time`, which write local date or time parts: those Dates take
   * the fallback).
   */
  isoDates?: boolean;
}
export interface ArrayShape {
  kind: 'array';
  items: SchemaShape;
  nullable: boolean;
}
export interface ObjectShape {
  kind: 'object';
  /** In the order fast-json-stringify writes them: required properties first, each group in schema order. */
  properties: PropertyShape[];
  nullable: boolean;
}
export interface PropertyShape {
  key: string;
  required: boolean;
  shape: SchemaShape;
}

/**
 * The ISO text of a Date, as fast-json-stringify writes a Date in a string field (see
 * {@link ScalarShape.isoDates}); `undefined` for an invalid Date, on which fast-json-stringify
 * throws (the fallback reports it).
 *
 * @example
 * isoText(new Date(0)); // '1970-01-01T00:00:00.000Z'
 * isoText(new Date(Number.NaN)); // undefined
 */
export function isoText(date: Date): string | undefined {
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * Does `value` have the scalar `type`, as fast-json-stringify checks it before writing the value
 * as it is? One function with a switch (not a table of predicates) so that hot callers inline it.
 *
 * @example
 * matchesScalar('integer', 3); // true
 * matchesScalar('number', Infinity); // false
 */
export function matchesScalar(type: ScalarType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return value === null;
  }
}

function describe(schema: unknown): SchemaShape | undefined {
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

  if (SCALARS.has(type)) {
    const scalar: ScalarShape = { kind: 'scalar', type: type as ScalarType, nullable };
    if (Array.isArray(s.enum)) scalar.enum = s.enum;
    if (type === 'string' && s.format !== 'date' && s.format !== 'time') scalar.isoDates = true;
    return scalar;
  }
  if (type === 'array') {
    const items = describe(s.items);
    return items === undefined ? undefined : { kind: 'array', items, nullable };
  }
  if (type === 'object') {
    const properties = describeProperties(s);
    return properties === undefined ? undefined : { kind: 'object', properties, nullable };
  }
  return undefined;
}

function describeProperties(schema: Record<string, unknown>): PropertyShape[] | undefined {
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
    return undefined;
  const properties = schema.properties ?? {};
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    return undefined;
  const required = schema.required ?? [];
  if (!Array.isArray(required)) return undefined;
  const declared = Object.keys(properties);
  if (declared.includes('__proto__') || required.some((key) => !declared.includes(key)))
    return undefined;
  // fast-json-stringify writes the required properties first, each group in schema order.
  const order = [
    ...declared.filter((key) => required.includes(key)),
    ...declared.filter((key) => !required.includes(key)),
  ];
  const described: PropertyShape[] = [];
  for (const key of order) {
    const shape = describe((properties as Record<string, unknown>)[key]);
    if (shape === undefined) return undefined;
    described.push({ key, required: required.includes(key), shape });
  }
  return described;
}

function projectionOf(shape: SchemaShape): Projection {
  let project: Projection;
  if (shape.kind === 'scalar') {
    const type = shape.type;
    project = shape.isoDates
      ? (value) =>
          typeof value === 'string'
            ? value
            : value instanceof Date
              ? (isoText(value) ?? fail())
              : fail()
      : (value) => (matchesScalar(type, value) ? (value as JsonValue) : fail());
  } else if (shape.kind === 'array') {
    const item = projectionOf(shape.items);
    project = (value) => (Array.isArray(value) ? value.map(item) : fail());
  } else {
    project = objectProjection(shape.properties);
  }
  if (!shape.nullable) return project;
  const inner = project;
  return (value) => (value === null ? null : inner(value));
}

function objectProjection(properties: readonly PropertyShape[]): Projection {
  const fields = properties.map(({ key, required, shape }) => ({
    key,
    required,
    project: projectionOf(shape),
  }));
  return (value) => {
    if (!isFieldwiseObject(value)) fail();
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

const shapes = new WeakMap<object, SchemaShape | null>();

/**
 * What a response schema says about the values it describes, or `undefined` when the schema
 * is outside the fast path (see {@link compileProjection} for what is inside). Described once
 * per schema object.
 *
 * @example
 * describeSchema({ type: 'object', required: ['b'], properties: { a: { type: 'string' }, b: { type: ['integer', 'null'] } } });
 * // { kind: 'object', nullable: false, properties: [
 * //   { key: 'b', required: true, shape: { kind: 'scalar', type: 'integer', nullable: true } },
 * //   { key: 'a', required: false, shape: { kind: 'scalar', type: 'string', nullable: false } } ] }
 */
export function describeSchema(schema: unknown): SchemaShape | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  let shape = shapes.get(schema);
  if (shape === undefined) {
    shape = describe(schema) ?? null;
    shapes.set(schema, shape);
  }
  return shape ?? undefined;
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
    const shape = describeSchema(schema);
    projection = shape === undefined ? null : projectionOf(shape);
    cache.set(schema, projection);
  }
  return projection ?? undefined;
}
