// The orders API on NestJS 12, on Express or on Fastify (`platform`), validated with
// class-validator through ProblemValidationPipe and documented by @nestjs/swagger. Run:
// node --import tsx examples/http/nest.ts (PORT, default 3000; NEST_PLATFORM=fastify).
//
// Written without decorator syntax, each decorator applied by a call, so that it runs under tsx
// (esbuild has no `emitDecoratorMetadata`, and without `experimentalDecorators` Nest's parameter
// decorators are not even syntax). In your app, with the tsconfig Nest's CLI generates, the same
// reads as usual: `@Controller('orders')`, `@Get(':id')`, `@ApiProblemResponse(404)`,
// `create(@Body() order: NewOrderDto)`; see docs/http.md.
import 'reflect-metadata';
import { pathToFileURL } from 'node:url';
import { Body, Controller, Get, HttpCode, Module, Param, Post, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  ApiBody,
  ApiResponse,
  DocumentBuilder,
  type SchemaObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { addToonToOpenApi } from '../../src/http/index.js'; // in your app: from 'toonwire/http'
import { ApiProblemResponse, ProblemValidationPipe, useToon } from '../../src/http/nest.js'; // in your app: from 'toonwire/nest'
import * as schemas from './fastify.js';
import { type NewOrder, OrderStore, type OrdersAppOptions } from './orders.js';

/** `@a @b method()`: decorators applied to a method as TypeScript would. */
function decorateMethod(target: object, key: string, ...decorators: MethodDecorator[]): void {
  const descriptor = Object.getOwnPropertyDescriptor(target, key)!;
  Reflect.decorate(decorators, target, key, descriptor);
  Object.defineProperty(target, key, descriptor);
}

/** `@a @b property` on a DTO, with the type TypeScript's metadata would name. */
function decorateProperty(
  target: object,
  key: string,
  type: unknown,
  ...decorators: PropertyDecorator[]
): void {
  Reflect.defineMetadata('design:type', type, target, key);
  for (const decorator of decorators.reverse()) decorator(target, key);
}

export class OrderItemDto {
  declare sku: string;
  declare quantity: number;
  declare unitPriceCents: number;
}
decorateProperty(OrderItemDto.prototype, 'sku', String, IsString(), MinLength(1), MaxLength(64));
decorateProperty(OrderItemDto.prototype, 'quantity', Number, IsInt(), Min(1), Max(1000));
decorateProperty(OrderItemDto.prototype, 'unitPriceCents', Number, IsInt(), Min(0));

export class NewOrderDto {
  declare items: OrderItemDto[];
  declare note?: string;
}
decorateProperty(
  NewOrderDto.prototype,
  'items',
  Array,
  IsArray(),
  ArrayMinSize(1),
  ArrayMaxSize(100),
  ValidateNested({ each: true }),
  Type(() => OrderItemDto),
);
decorateProperty(NewOrderDto.prototype, 'note', String, IsOptional(), IsString(), MaxLength(500));

export class ListQueryDto {
  limit = 20;
  declare cursor?: string;
}
decorateProperty(
  ListQueryDto.prototype,
  'limit',
  Number,
  IsOptional(),
  Type(() => Number),
  IsInt(),
  Min(1),
  Max(100),
);
decorateProperty(ListQueryDto.prototype, 'cursor', String, IsOptional(), IsString());

// The JSON Schemas of the Fastify example, as @nestjs/swagger's (mutable) schema objects.
type Schema = SchemaObject;
const orderPage = structuredClone(schemas.orderPage) as unknown as Schema;
const order = structuredClone(schemas.order) as unknown as Schema;
const newOrder = structuredClone(schemas.newOrder) as unknown as Schema;

/** The platform a Nest example runs on. */
export type NestPlatform = 'express' | 'fastify';

/** Builds the app (not yet listening); `settings` is the live negotiation settings. */
export async function buildApp(options: OrdersAppOptions & { platform?: NestPlatform } = {}) {
  const store = options.store ?? new OrderStore();
  const bodyLimit = options.bodyLimit ?? 100 * 1024;
  const openapi: { document: object } = { document: {} };

  class OrdersController {
    list(query: ListQueryDto) {
      return store.list(query.limit, query.cursor);
    }
    get(id: string) {
      return store.get(id);
    }
    create(body: NewOrderDto) {
      return store.create(body as NewOrder);
    }
    openapi() {
      return openapi.document;
    }
  }
  const proto = OrdersController.prototype;
  Query()(proto, 'list', 0);
  Reflect.defineMetadata('design:paramtypes', [ListQueryDto], proto, 'list');
  decorateMethod(
    proto,
    'list',
    Get('orders'),
    ApiResponse({ status: 200, description: 'One page of orders', schema: orderPage }),
    ApiProblemResponse(400, 'Invalid query'),
  );
  Param('id')(proto, 'get', 0);
  Reflect.defineMetadata('design:paramtypes', [String], proto, 'get');
  decorateMethod(
    proto,
    'get',
    Get('orders/:id'),
    ApiResponse({ status: 200, description: 'The order', schema: order }),
    ApiProblemResponse(404, 'No such order'),
  );
  Body()(proto, 'create', 0);
  Reflect.defineMetadata('design:paramtypes', [NewOrderDto], proto, 'create');
  decorateMethod(
    proto,
    'create',
    Post('orders'),
    HttpCode(201),
    ApiBody({ schema: newOrder }),
    ApiResponse({ status: 201, description: 'The new order', schema: order }),
    ApiProblemResponse(400, 'Invalid or malformed body'),
    ApiProblemResponse(413, 'Body too large'),
    ApiProblemResponse(415, 'Unsupported Content-Type'),
  );
  decorateMethod(proto, 'openapi', Get('openapi.json'));
  Controller()(OrdersController);

  class AppModule {}
  Module({ controllers: [OrdersController] })(AppModule);

  const platform = options.platform ?? 'express';
  const app =
    platform === 'fastify'
      ? await NestFactory.create(AppModule, new FastifyAdapter({ bodyLimit }), {
          logger: false,
          // Fastify's own JSON parser only: Nest's would add form bodies, which this API does not read.
          bodyParser: false,
        })
      : await NestFactory.create<NestExpressApplication>(AppModule, new ExpressAdapter(), {
          logger: false,
          bodyParser: false,
        });
  if (platform === 'express') {
    // Nest's JSON parser with the same limit as TOON bodies.
    (app as NestExpressApplication).useBodyParser('json', { limit: bodyLimit });
  }
  const settings = await useToon(app, {
    defaultFormat: options.defaultFormat,
    delimiter: options.delimiter,
    bodyLimit,
    // The OpenAPI document stays JSON whatever Accept says: OpenAPI tools expect it.
    skip: (request) => request.url.startsWith('/openapi.json'),
    ...(platform === 'express' ? { bodyTypes: ['application/json'] } : {}),
  });
  app.useGlobalPipes(new ProblemValidationPipe({ transform: true, whitelist: true }));
  openapi.document = addToonToOpenApi(
    SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('Orders')
        .setVersion('1.0.0')
        .setOpenAPIVersion('3.1.0')
        .build(),
    ),
  );
  return { app, settings, store };
}

/** Builds the app and listens on `host:port` (port 0: any free port). */
export async function startServer(
  options: OrdersAppOptions & { platform?: NestPlatform; port?: number; host?: string } = {},
) {
  const { app, settings, store } = await buildApp(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen(options.port ?? 3000, host);
  const address = app.getHttpServer().address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return { url: `http://${host}:${address.port}`, close: () => app.close(), settings, store };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const platform = process.env.NEST_PLATFORM === 'fastify' ? 'fastify' : 'express';
  const server = await startServer({ platform, port: Number(process.env.PORT ?? 3000) });
  console.log(`orders API (NestJS on ${platform}) listening on ${server.url}`);
}
