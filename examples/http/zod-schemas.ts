// Validation and the OpenAPI document of the Express and Hono examples, both from zod. The
// Fastify example states the same constraints as JSON Schema (examples/http/fastify.ts).
import { z } from 'zod';
import {
  PROBLEM_JSON_SCHEMA,
  type ValidationIssue,
  validationProblem,
} from '../../src/http/index.js'; // in your app: from 'toonwire/http'

export const orderItemSchema = z.object({
  sku: z.string().min(1).max(64),
  quantity: z.number().int().min(1).max(1000),
  unitPriceCents: z.number().int().min(0),
});

/** POST /orders body. Unknown fields are dropped, as Fastify's default Ajv setup does. */
export const newOrderSchema = z.object({
  items: z.array(orderItemSchema).min(1).max(100),
  note: z.string().max(500).optional(),
});

export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().optional(),
});

const orderSchema = z.object({
  id: z.string(),
  status: z.enum(['placed', 'paid', 'shipped', 'cancelled']),
  items: z.array(orderItemSchema),
  totalCents: z.number().int(),
  note: z.string().optional(),
});

const orderPageSchema = z.object({
  data: z.array(orderSchema),
  page: z.object({ nextCursor: z.string().nullable(), hasMore: z.boolean() }),
});

function pointer(path: readonly PropertyKey[]): string {
  return path.map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** What zod 3 and 4 errors (`ZodError`, `$ZodError`) have in common. */
interface ZodIssues {
  issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>;
}

/** The 400 problem for a failed zod parse: an `errors` list of `{ pointer, message }`. */
export function zodProblem(error: ZodIssues, part = 'body') {
  const issues: ValidationIssue[] = error.issues.map((issue) => ({
    pointer: pointer(issue.path),
    message: issue.message,
  }));
  return validationProblem(issues, { part });
}

/**
 * Validates `value` against `schema`, or throws the same 400 problem shape the Fastify
 * example produces (an `errors` list of `{ pointer, message }`).
 */
export function parseOrProblem<T>(schema: z.ZodType<T>, value: unknown, part = 'body'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw zodProblem(result.error, part);
}

const PARTS: Readonly<Record<string, string>> = { json: 'body', query: 'querystring' };

/**
 * The hook for @hono/zod-validator's `zValidator(target, schema, hook)`: a failed check throws
 * the 400 problem, which `app.onError(negotiation.onError)` sends in JSON or TOON as the client
 * negotiated (and Hono's default handler as JSON, through `HttpProblem.getResponse()`).
 */
export function zodProblemHook(result: {
  success: boolean;
  error?: ZodIssues;
  target: string;
}): void {
  if (!result.success && result.error !== undefined)
    throw zodProblem(result.error, PARTS[result.target] ?? result.target);
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io }) as Record<string, unknown>;
  return rest;
}

function problemResponse(description: string) {
  return {
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
}

/** The OpenAPI 3.1 document of the orders API, JSON only: apps pass it through addToonToOpenApi. */
export function ordersOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Orders', version: '1.0.0' },
    paths: {
      '/orders': {
        get: {
          summary: 'List orders, newest first',
          parameters: [
            {
              name: 'limit',
              in: 'query',
              schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            },
            { name: 'cursor', in: 'query', schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description: 'One page of orders',
              content: { 'application/json': { schema: jsonSchema(orderPageSchema, 'output') } },
            },
            400: problemResponse('Invalid query'),
          },
        },
        post: {
          summary: 'Place an order',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(newOrderSchema, 'input') } },
          },
          responses: {
            201: {
              description: 'The new order',
              content: { 'application/json': { schema: jsonSchema(orderSchema, 'output') } },
            },
            400: problemResponse('Invalid or malformed body'),
            413: problemResponse('Body too large'),
            415: problemResponse('Unsupported Content-Type'),
          },
        },
      },
      '/orders/{id}': {
        get: {
          summary: 'One order',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            200: {
              description: 'The order',
              content: { 'application/json': { schema: jsonSchema(orderSchema, 'output') } },
            },
            404: problemResponse('No such order'),
          },
        },
      },
    },
    components: { schemas: { Problem: PROBLEM_JSON_SCHEMA } },
  };
}
