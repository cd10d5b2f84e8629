// A call made through `toonwire_call_tool` is checked against the tool's real inputSchema before
// it is forwarded: the model wrote those arguments from a definition it read as text, and a
// precise answer now (what is wrong, and the part of the schema that says so) saves a round trip
// to an upstream whose own message may be vaguer. Ajv, loaded the first time a call is checked.
//
// The check never refuses what the upstream might accept: formats are not checked (JSON Schema
// 2020-12 makes `format` an annotation, and servers differ), no defaults are filled in, and a
// schema Ajv cannot read (draft-04, a remote $ref) lets the call through unchecked.

import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { isPlainObject } from '../../../codec/objects.js';

/** The Ajv classes, one per dialect, as their modules export them. */
type AjvClass = new (options: Options) => { compile(schema: object): ValidateFunction };

/** Which Ajv module reads a dialect. */
const DIALECTS = [
  { pattern: /json-schema\.org\/draft\/2020-12\//, module: 'ajv/dist/2020.js', name: 'Ajv2020' },
  { pattern: /json-schema\.org\/draft\/2019-09\//, module: 'ajv/dist/2019.js', name: 'Ajv2019' },
  { pattern: /json-schema\.org\/draft-0[67]\//, module: 'ajv/dist/ajv.js', name: 'Ajv' },
] as const;

/** MCP (2025-11-25): an inputSchema without `$schema` is JSON Schema 2020-12. */
const DEFAULT_DIALECT = DIALECTS[0];

const AJV_OPTIONS: Options = {
  strict: false, // tools' schemas carry keywords of their own; they are annotations here
  allErrors: true, // every problem in one answer, not one per attempt
  verbose: true, // errors carry the schema object that failed, to show the model
  validateFormats: false,
  validateSchema: false, // a schema the upstream serves is the upstream's business
  addUsedSchema: false, // two tools' schemas may share an $id
  useDefaults: false,
  coerceTypes: false,
};

/** How many problems an answer names, and how many schema parts it shows. */
const MOST_PROBLEMS = 8;
const MOST_SCHEMA_PARTS = 3;
/** Longer schema parts are shown with their properties reduced to their types. */
const SCHEMA_PART_CHARS = 1500;

/** What checking arguments found. */
export type ArgumentsCheck =
  | { verdict: 'valid' }
  /** The schema could not be read (why): the call goes to the upstream, which checks it. */
  | { verdict: 'unchecked'; reason: string }
  | {
      verdict: 'invalid';
      /** One line per problem, for the model: where in the arguments, and what is wrong. */
      problems: string[];
      /** The parts of the schema that the arguments failed, with their JSON pointers. */
      schemaParts: Array<{ pointer: string; schema: unknown }>;
    };

/**
 * Checks a tool call's arguments against its inputSchema; compiled validators are kept per
 * schema object.
 *
 * @example
 * const checker = new ArgumentChecker();
 * const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
 * checker.check(schema, { path: '/tmp' }).verdict; // 'valid'
 * checker.check(schema, {}); // { verdict: 'invalid', problems: ['the arguments lack the required property "path"'], schemaParts: [...] }
 */
export class ArgumentChecker {
  private readonly instances = new Map<string, InstanceType<AjvClass>>();
  private readonly compiled = new WeakMap<object, ValidateFunction | string>();

  check(schema: unknown, args: unknown): ArgumentsCheck {
    if (!isPlainObject(schema)) return { verdict: 'unchecked', reason: 'no inputSchema' };
    const validate = this.validatorFor(schema);
    if (typeof validate === 'string') return { verdict: 'unchecked', reason: validate };
    if (validate(args)) return { verdict: 'valid' };
    const errors = (validate.errors ?? []).filter(
      // "must match a schema in anyOf" says less than the branch errors beside it, unless alone.
      (error, _, all) => !(error.keyword === 'anyOf' && all.length > 1),
    );
    const problems = errors.slice(0, MOST_PROBLEMS).map(describeError);
    if (errors.length > MOST_PROBLEMS)
      problems.push(`(${errors.length - MOST_PROBLEMS} more problems not shown)`);
    const schemaParts: Array<{ pointer: string; schema: unknown }> = [];
    for (const error of errors) {
      const pointer = error.schemaPath.slice(0, error.schemaPath.lastIndexOf('/')) || '#';
      if (schemaParts.length === MOST_SCHEMA_PARTS) break;
      if (schemaParts.some((part) => part.pointer === pointer)) continue;
      schemaParts.push({ pointer, schema: shortened(error.parentSchema) });
    }
    return { verdict: 'invalid', problems, schemaParts };
  }

  /** The compiled validator of `schema`, or why it has none. */
  private validatorFor(schema: Record<string, unknown>): ValidateFunction | string {
    let validate = this.compiled.get(schema);
    if (validate !== undefined) return validate;
    const declared = schema.$schema;
    const dialect =
      declared === undefined
        ? DEFAULT_DIALECT
        : DIALECTS.find(({ pattern }) => typeof declared === 'string' && pattern.test(declared));
    if (dialect === undefined) validate = `its $schema ${JSON.stringify(declared)} is not checked`;
    else {
      try {
        validate = this.instance(dialect).compile(schema);
      } catch (error) {
        validate = `its inputSchema could not be compiled (${error instanceof Error ? error.message : String(error)})`;
      }
    }
    this.compiled.set(schema, validate);
    return validate;
  }

  private instance(dialect: (typeof DIALECTS)[number]): InstanceType<AjvClass> {
    let ajv = this.instances.get(dialect.name);
    if (ajv === undefined) {
      const load = createRequire(import.meta.url);
      const Class = (load(dialect.module) as Record<string, AjvClass>)[dialect.name]!;
      ajv = new Class(AJV_OPTIONS);
      this.instances.set(dialect.name, ajv);
    }
    return ajv;
  }
}

/** One Ajv error as a line for the model. */
function describeError(error: ErrorObject): string {
  const where = describePath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${where} lack${where === 'the arguments' ? '' : 's'} the required property ${JSON.stringify(params.missingProperty)}`;
    case 'additionalProperties': {
      const allowed = isPlainObject(error.parentSchema?.properties)
        ? Object.keys(error.parentSchema.properties)
        : [];
      const known =
        allowed.length > 0
          ? ` (it allows ${allowed.map((key) => JSON.stringify(key)).join(', ')})`
          : '';
      return `${where}: ${JSON.stringify(params.additionalProperty)} is not a property the schema allows${known}`;
    }
    case 'enum':
      return `${where} is ${preview(error.data)}, but must be one of ${(params.allowedValues as unknown[]).map(preview).join(', ')}`;
    case 'const':
      return `${where} is ${preview(error.data)}, but must be ${preview(params.allowedValue)}`;
    case 'type':
      return `${where} is ${preview(error.data)}, but must be of type ${String(params.type)}`;
    default:
      return `${where} ${error.message ?? `fails "${error.keyword}"`}`;
  }
}

/**
 * A JSON pointer into the arguments as a path a model reads: `/entities/0/name` is
 * `entities[0].name`.
 */
function describePath(pointer: string): string {
  if (pointer === '') return 'the arguments';
  let path = '';
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^\d+$/.test(key)) path += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(key)) path += path === '' ? key : `.${key}`;
    else path += `[${JSON.stringify(key)}]`;
  }
  return `\`${path}\``;
}

/** A value, short: JSON up to 60 characters, else its kind. */
function preview(value: unknown): string {
  const text = JSON.stringify(value);
  if (text !== undefined && text.length <= 60) return text;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? 'null' : `a long ${typeof value}`;
}

/**
 * A schema part small enough to quote: as it is when short, else with each property reduced to
 * its type (and allowed values), which is what a wrong argument usually needs.
 */
function shortened(schema: unknown): unknown {
  if (JSON.stringify(schema).length <= SCHEMA_PART_CHARS || !isPlainObject(schema)) return schema;
  const { properties, ...rest } = schema;
  if (!isPlainObject(properties)) return schema;
  const types: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isPlainObject(property)) types[name] = property;
    else {
      const { type, enum: allowed, const: only } = property;
      types[name] = Object.fromEntries(
        Object.entries({ type, enum: allowed, const: only }).filter(([, v]) => v !== undefined),
      );
    }
  }
  const short = { ...rest, properties: types };
  return JSON.stringify(short).length <= SCHEMA_PART_CHARS * 2
    ? short
    : { ...rest, properties: Object.keys(types) };
}
