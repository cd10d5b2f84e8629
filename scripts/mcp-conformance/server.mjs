// A server for the official MCP conformance suite's server scenarios, written from the
// scenarios' own requirement texts (`conformance list`, then each scenario's description), so
// that the suite can be run against a server directly and through `toonwire proxy`.
//
//   node scripts/mcp-conformance/server.mjs            MCP over stdio
//   node scripts/mcp-conformance/server.mjs --port N   Streamable HTTP at http://127.0.0.1:N/mcp

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A 1x1 red PNG. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A WAV header with no samples: 44 bytes, 8 kHz mono 8-bit. */
function silentWav() {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(0, 40);
  return header.toString('base64');
}

/** Asks the client for input on the stream of the tool call `extra` belongs to. */
const elicit = (extra, params) =>
  extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ content: [{ type: 'text', text: value }] });
/** The text result reporting an elicitation's answer, after `label`. */
const answered = (label, answer) =>
  text(`${label}: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);

function build() {
  const server = new McpServer(
    { name: 'toonwire-conformance-server', version: '1.0.0' },
    {
      capabilities: {
        logging: {},
        completions: {},
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true },
        prompts: { listChanged: true },
      },
    },
  );
  const clientCan = (capability) =>
    server.server.getClientCapabilities()?.[capability] !== undefined;

  server.registerTool('test_simple_text', { description: 'Returns simple text' }, async () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'Returns an image' }, async () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Returns audio' }, async () => ({
    content: [{ type: 'audio', data: silentWav(), mimeType: 'audio/wav' }],
  }));
  server.registerTool(
    'test_embedded_resource',
    { description: 'Returns an embedded resource' },
    async () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  );
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Returns text, image and resource' },
    async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  );
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Logs three messages' },
    async (extra) => {
      // A tool without an inputSchema gets only `extra`.
      for (const [i, data] of [
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ].entries()) {
        if (i > 0) await sleep(50);
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', data },
        });
      }
      return text('Tool with logging executed successfully');
    },
  );
  server.registerTool('test_error_handling', { description: 'Always fails' }, async () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress' },
    async (extra) => {
      const token = extra._meta?.progressToken;
      for (const [i, progress] of [0, 50, 100].entries()) {
        if (i > 0) await sleep(50);
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress, total: 100 },
          });
      }
      return text('Tool with progress executed successfully');
    },
  );
  server.registerTool(
    'test_sampling',
    { description: 'Asks the client to sample', inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      if (!clientCan('sampling'))
        return { ...text('The client does not support sampling'), isError: true };
      // On the tool call's own stream (extra.sendRequest), not the standalone one.
      const response = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
            maxTokens: 100,
          },
        },
        CreateMessageResultSchema,
      );
      return text(`LLM response: ${response.content.type === 'text' ? response.content.text : ''}`);
    },
  );
  server.registerTool(
    'test_elicitation',
    { description: 'Asks the user', inputSchema: { message: z.string() } },
    async ({ message }, extra) => {
      if (!clientCan('elicitation'))
        return { ...text('The client does not support elicitation'), isError: true };
      const answer = await elicit(extra, {
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return answered('User response', answer);
    },
  );
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicits with defaults' },
    async (extra) => {
      const answer = await elicit(extra, {
        message: 'Please review the defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', default: 'John Doe' },
            age: { type: 'integer', default: 30 },
            score: { type: 'number', default: 95.5 },
            status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', default: true },
          },
        },
      });
      return answered('Elicitation completed', answer);
    },
  );
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicits with enums' },
    async (extra) => {
      const answer = await elicit(extra, {
        message: 'Please choose',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
        },
      });
      return answered('Elicitation completed', answer);
    },
  );
  // JSON Schema 2020-12 keywords must survive tools/list: registered on the low-level server.
  const schemaTool = {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  };
  server.registerTool(
    'json_schema_2020_12_tool',
    { description: schemaTool.description },
    async () => text('ok'),
  );
  const listTools = server.server._requestHandlers.get('tools/list');
  server.server._requestHandlers.set('tools/list', async (request, extra) => {
    const result = await listTools(request, extra);
    return {
      ...result,
      tools: result.tools.map((tool) => (tool.name === schemaTool.name ? schemaTool : tool)),
    };
  });

  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }] }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource to subscribe to', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }],
    }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'A resource template', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );
  const subscriptions = new Set();
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt' }, () => ({
    messages: [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with arguments',
      argsSchema: {
        arg1: completable(z.string().describe('First test argument'), (value) =>
          ['paris', 'park', 'party'].filter((option) => option.startsWith(value)),
        ),
        arg2: z.string().describe('Second test argument'),
      },
    },
    ({ arg1, arg2 }) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt with an embedded resource', argsSchema: { resourceUri: z.string() } },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        {
          role: 'user',
          content: { type: 'text', text: 'Please process the embedded resource above.' },
        },
      ],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_image',
    { description: 'A prompt with an image' },
    () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    }),
  );
  return server;
}

const portFlag = process.argv.indexOf('--port');
if (portFlag === -1) {
  await build().connect(new StdioServerTransport());
} else {
  const local = new Set(['localhost', '127.0.0.1', '[::1]']);
  const hostname = (value) => {
    try {
      return new URL(value).hostname;
    } catch {
      return '';
    }
  };
  const transports = new Map();
  const http = createServer(async (request, response) => {
    const origin = request.headers.origin;
    if (
      !local.has(hostname(`http://${request.headers.host}`)) ||
      (origin !== undefined && !local.has(hostname(origin)))
    ) {
      response.writeHead(403).end('Forbidden: not a local Host or Origin');
      return;
    }
    const sessionId = request.headers['mcp-session-id'];
    let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (transport === undefined) {
      if (typeof sessionId === 'string') {
        response.writeHead(404).end('Session not found');
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transports.delete(transport.sessionId);
      await build().connect(transport);
    }
    await transport.handleRequest(request, response);
  });
  http.listen(Number(process.argv[portFlag + 1]), '127.0.0.1', () => {
    process.stderr.write(`conformance server at http://127.0.0.1:${http.address().port}/mcp\n`);
  });
  process.once('SIGTERM', () => {
    http.closeAllConnections();
    http.close(() => process.exit(0));
  });
}
