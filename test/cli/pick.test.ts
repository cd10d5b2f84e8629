import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { parseCompact } from '../../src/compact/index.js';
import { assertBuilt, REPO_ROOT, runCli } from './run-cli.js';

before(assertBuilt);

const runs = readFileSync(`${REPO_ROOT}corpus/get-actor-run-list/user-runs-latest-10.json`, 'utf8');
const places = `${REPO_ROOT}corpus/get-dataset-items/google-maps-coffee-prague-10.json`;

/** The strategy --explain marks as picked. */
function pickedStrategy(stderr: string): string {
  const line = stderr.split('\n').find((l) => / {2}picked[ :(]/.test(l));
  assert.ok(line, `--explain marks a pick:\n${stderr}`);
  return line.trim().split(/\s+/)[0]!;
}

describe('toonwire pick', () => {
  it('prints the smallest encoding, which decodes back to the input', async () => {
    const run = await runCli(['pick', '--explain'], { input: runs });
    assert.equal(run.code, 0);
    const strategy = pickedStrategy(run.stderr);
    assert.notEqual(strategy, 'json', 'a run list is smaller as TOON');
    assert.ok(Buffer.byteLength(run.stdout) < Buffer.byteLength(JSON.stringify(JSON.parse(runs))));
    assert.deepEqual(parseCompact(run.stdout.replace(/\n$/, ''), strategy), JSON.parse(runs));
  });

  it("keeps --explain on stderr, listing every candidate's bytes and tokens", async () => {
    const run = await runCli(['pick', '--explain', '--candidates', 'all'], { input: runs });
    assert.equal(run.code, 0);
    assert.doesNotMatch(run.stdout, /candidate/);
    for (const name of ['json', 'toon', 'toon-flatten', 'toon-tab']) {
      assert.match(
        run.stderr,
        new RegExp(`^${name}\\s+[\\d,]+\\s+[\\d,]+`, 'm'),
        `${name} has a row`,
      );
    }
  });

  it('ships JSON when nothing is smaller', async () => {
    // Rows with different keys fall back to TOON's indented list form, which is longer.
    const run = await runCli(['pick', '--explain'], { input: '[{"a":1},{"b":2}]' });
    assert.equal(run.code, 0);
    assert.equal(pickedStrategy(run.stderr), 'json');
    assert.equal(run.stdout, '[{"a":1},{"b":2}]\n');
  });

  it('projects to --fields before encoding', async () => {
    const run = await runCli(['pick', places, '--fields', 'title,totalScore', '--explain']);
    assert.equal(run.code, 0);
    const value = parseCompact(run.stdout.replace(/\n$/, ''), pickedStrategy(run.stderr)) as {
      items: Array<Record<string, unknown>>;
    };
    assert.equal(value.items.length, 10);
    for (const item of value.items) assert.deepEqual(Object.keys(item), ['title', 'totalScore']);
  });

  it('refuses --fields when no item has any of them, naming the closest real fields (exit 1)', async () => {
    const run = await runCli(['pick', places, '--fields', 'tilte,totalscore']);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '', 'nothing written: every item would be {}');
    assert.match(
      run.stderr,
      /^toonwire: .*google-maps-coffee-prague-10\.json: no item has any of the fields 'tilte' \(closest: 'title'\), 'totalscore' \(closest: 'totalScore'\); .*the items' fields are title, /,
    );
    const streamed = await runCli(['pick', '--stream', '--fields', 'nmae'], {
      input: '[{"name":"a"},{"name":"b"}]',
    });
    assert.equal(streamed.code, 1, 'a streamed pick checks the fields in its first pass');
    assert.match(streamed.stderr, /no item has the field 'nmae' \(closest: 'name'\)/);
  });

  it('warns about a --fields typo with the closest real field, and keeps the others', async () => {
    const run = await runCli(['pick', '--fields', 'name,ulr'], {
      input: '[{"name":"a","url":"u"},{"name":"b","url":"v"}]',
    });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '[{"name":"a"},{"name":"b"}]\n');
    assert.equal(
      run.stderr,
      "toonwire: warning: <stdin>: no item has the field 'ulr' (closest: 'url'); check the spelling (the fields that exist are kept)\n",
    );
  });

  it('states the default rule and names a smaller TOON text it passed over, and why', async () => {
    const hiking = `${REPO_ROOT}corpus/get-dataset-items/rag-web-browser-hiking-5.json`;
    const run = await runCli(['pick', hiking, '--explain']);
    assert.equal(run.code, 0);
    assert.equal(pickedStrategy(run.stderr), 'json');
    assert.match(
      run.stderr,
      /^toon\s+[\d,]+\s+[\d,]+\s+passed over: saves \d+\.\d% of the bytes but an estimated \d+\.\d% of the tokens, under the 10% margin$/m,
    );
    assert.match(
      run.stderr,
      /^The rule \(--by auto\): TOON ships only when .* saves at least 50%/m,
    );
  });

  it('compares token counts with --by tokens', async () => {
    const run = await runCli(['pick', '--by', 'tokens', '--explain'], { input: runs });
    assert.equal(run.code, 0);
    assert.match(run.stderr, /picked \(smallest by tokens\)/);
  });

  it('shows a candidate that cannot encode the input as dropped, and still ships', async () => {
    const run = await runCli(['pick', '--candidates', 'toon-flatten', '--explain'], {
      input: '{"a.b":{"c":1}}',
    });
    assert.equal(run.code, 0);
    assert.match(run.stderr, /^toon-flatten\s+-\s+-\s+dropped: /m);
    assert.equal(run.stdout, '{"a.b":{"c":1}}\n');
  });

  it('exits 2 for an unknown measure or candidate', async () => {
    assert.equal((await runCli(['pick', '--by', 'words'], { input: '{}' })).code, 2);
    assert.equal((await runCli(['pick', '--candidates', 'yaml'], { input: '{}' })).code, 2);
  });

  it('exits 1 with file:line:column for malformed input', async () => {
    const run = await runCli(['pick'], { input: '[1, 2,' });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'toonwire: <stdin>:1:7: unexpected end of input; the JSON is incomplete\n',
    );
  });
});
