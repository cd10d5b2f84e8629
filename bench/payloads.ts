// Real payloads for the picker's benchmarks: the project's generated corpus (corpus/), the npm
// datasets (bench/datasets.ts), the shared corpus when it sits beside the project, every recorded
// GitHub API response body of `@octokit/fixtures` (a devDependency), and small API-shaped bodies
// under 1 KB (Stripe's and GitHub's documented shapes), which is most MCP tool results.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDocuments } from './corpus.js';
import { loadNpmDatasets } from './datasets.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** One payload: where it comes from, and its parsed value. */
export interface Payload {
  name: string;
  value: unknown;
}

/** Every `*.json` of the project's generated sample corpus (corpus/), manifest aside. */
export function loadProjectCorpus(): Payload[] {
  const dir = path.join(root, 'corpus');
  const found: Payload[] = [];
  const visit = (at: string): void => {
    for (const entry of fs
      .readdirSync(at, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (entry.name.endsWith('.json') && entry.name !== 'manifest.json') {
        found.push({
          name: `corpus/${path.relative(dir, file)}`,
          value: JSON.parse(fs.readFileSync(file, 'utf8')),
        });
      }
    }
  };
  visit(dir);
  return found;
}

/**
 * The response bodies recorded in `@octokit/fixtures` (real GitHub API answers, normalized ids),
 * each distinct JSON object or array once, named by scenario and request.
 */
export function loadOctokitFixtures(): Payload[] {
  const scenarios = path.join(
    path.dirname(require.resolve('@octokit/fixtures/package.json')),
    'scenarios',
  );
  const seen = new Set<string>();
  const found: Payload[] = [];
  for (const host of fs.readdirSync(scenarios).sort()) {
    for (const scenario of fs.readdirSync(path.join(scenarios, host)).sort()) {
      const file = path.join(scenarios, host, scenario, 'normalized-fixture.json');
      if (!fs.existsSync(file)) continue;
      const records = JSON.parse(fs.readFileSync(file, 'utf8')) as {
        method: string;
        path: string;
        response: unknown;
      }[];
      for (const record of records) {
        const body = record.response;
        if (typeof body !== 'object' || body === null) continue;
        const text = JSON.stringify(body);
        if (seen.has(text)) continue;
        seen.add(text);
        found.push({ name: `octokit ${scenario} ${record.method} ${record.path}`, value: body });
      }
    }
  }
  return found;
}

/**
 * Small bodies in the shapes of documented API answers (Stripe's balance, list and error
 * objects; GitHub's rate limit and error), under 1 KB each: the size most tool results have,
 * where a fixed cost per call shows most.
 */
export function smallApiBodies(): Payload[] {
  return [
    { name: 'empty list (35 B)', value: { object: 'list', data: [], has_more: false } },
    {
      name: 'stripe balance',
      value: {
        object: 'balance',
        available: [{ amount: 666670, currency: 'usd', source_types: { card: 666670 } }],
        connect_reserved: [{ amount: 0, currency: 'usd' }],
        livemode: false,
        pending: [{ amount: 61414, currency: 'usd', source_types: { card: 61414 } }],
      },
    },
    {
      name: 'stripe error',
      value: {
        error: {
          code: 'resource_missing',
          doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
          message: "No such customer: 'cus_9s6XKzkNRiz8i3'",
          param: 'id',
          type: 'invalid_request_error',
        },
      },
    },
    {
      name: 'stripe customer',
      value: {
        id: 'cus_NffrFeUfNV2Hib',
        object: 'customer',
        address: null,
        balance: 0,
        created: 1680893993,
        currency: null,
        default_source: null,
        delinquent: false,
        description: null,
        email: 'jennyrosen@example.com',
        invoice_prefix: '0759376C',
        invoice_settings: { custom_fields: null, default_payment_method: null, footer: null },
        livemode: false,
        metadata: {},
        name: 'Jenny Rosen',
        next_invoice_sequence: 1,
        phone: null,
        preferred_locales: [],
        shipping: null,
        tax_exempt: 'none',
        test_clock: null,
      },
    },
    {
      name: 'github error',
      value: {
        message: 'Not Found',
        documentation_url: 'https://docs.github.com/rest/repos/repos#get-a-repository',
        status: '404',
      },
    },
    {
      name: 'github rate limit',
      value: {
        resources: Object.fromEntries(
          [
            'core',
            'search',
            'graphql',
            'integration_manifest',
            'source_import',
            'code_scanning_upload',
            'actions_runner_registration',
            'scim',
          ].map((name, i) => [
            name,
            { limit: 5000, used: i, remaining: 5000 - i, reset: 1691591363 + i },
          ]),
        ),
        rate: { limit: 5000, used: 1, remaining: 4999, reset: 1372700873 },
      },
    },
    { name: 'one number', value: 42 },
    { name: 'short string', value: 'ok' },
    { name: 'three ids', value: [1, 2, 3] },
    {
      name: 'two rows',
      value: [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
      ],
    },
  ];
}

/** Every payload the picker's cost is held to: small bodies first, then the real corpora. */
export function loadAllPayloads(): Payload[] {
  return [
    ...smallApiBodies(),
    ...loadOctokitFixtures(),
    ...loadProjectCorpus(),
    ...loadNpmDatasets().map(({ name, value }) => ({ name, value })),
    ...loadDocuments(),
  ];
}
