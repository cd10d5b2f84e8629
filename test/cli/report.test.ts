import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ReportData } from '../../src/cli/report/model.js';
import { assertBuilt, type CliRun, runCli } from './run-cli.js';

const GROUPS = [
  'get-actor-run-list',
  'get-dataset-list',
  'get-key-value-store-list',
  'get-key-value-store-keys',
  'get-dataset-items',
];

const dir = mkdtempSync(join(tmpdir(), 'toonwire-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// The two full-corpus runs take a few seconds each: start them once, side by side.
let text: CliRun;
let json: CliRun;
before(async () => {
  assertBuilt();
  [text, json] = await Promise.all([runCli(['report']), runCli(['report', '--json'])]);
});

describe('toonwire report on the bundled corpus (what `npm start` runs)', () => {
  it('prints the tables and exits 0', () => {
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stderr, '', 'no progress or errors when stderr is not a terminal');
    assert.match(
      text.stdout,
      /^toonwire report on the bundled corpus: 18 payloads in 5 groups; picker by auto; tokens counted with o200k_base/,
    );
    for (const heading of [
      'Per payload',
      'Per tool',
      'Projection: google-maps-restaurants-vienna-100 (100 items), fields=title,url,totalScore',
    ]) {
      assert.ok(text.stdout.includes(`\n${heading}\n`), `has "${heading}"`);
    }
    for (const group of GROUPS)
      assert.match(
        text.stdout,
        new RegExp(`^${group}\\s+\\d+\\s`, 'm'),
        `${group} has a summary row`,
      );
    assert.match(text.stdout, /^combined \(18 payloads\)\s+18\s/m);
    assert.match(text.stdout, /^Round trip: all 60 encodings decode back to their input\.$/m);
  });

  it('reports 18 payloads in the five tool groups as JSON', () => {
    assert.equal(json.code, 0, json.stderr);
    const data = JSON.parse(json.stdout) as ReportData;
    assert.equal(data.source, 'bundled-corpus');
    assert.deepEqual(data.settings, {
      by: 'auto',
      tokenizer: 'o200k_base',
      candidates: ['json', 'toon', 'toon-flatten'],
    });
    assert.deepEqual(
      data.groups.map((g) => [g.name, g.fixtures]),
      [
        ['get-actor-run-list', 2],
        ['get-dataset-list', 3],
        ['get-key-value-store-list', 3],
        ['get-key-value-store-keys', 2],
        ['get-dataset-items', 8],
      ],
    );
    assert.equal(data.fixtures.length, 18);
    assert.equal(data.combined.fixtures, 18);
    assert.deepEqual(data.errors, []);
    assert.deepEqual(data.roundTrips, { checked: 60, failed: 0 });
  });

  it('never picks anything larger than JSON, and reports the picked candidate exactly', () => {
    const data = JSON.parse(json.stdout) as ReportData;
    for (const fixture of data.fixtures) {
      const sizes = Object.fromEntries(fixture.candidates.map((c) => [c.name, c.size!]));
      assert.deepEqual(Object.keys(sizes), ['json', 'toon', 'toon-flatten']);
      assert.ok(
        fixture.picked.bytes <= sizes['json']!.bytes,
        `${fixture.name}: picked ${fixture.picked.bytes} > json ${sizes['json']!.bytes}`,
      );
      assert.deepEqual(
        { bytes: fixture.picked.bytes, tokens: fixture.picked.tokens },
        sizes[fixture.picked.strategy],
      );
      const smallest = Math.min(...Object.values(sizes).map((s) => s.bytes));
      // The default ships the smallest in bytes, or JSON when that would cost more tokens.
      assert.ok(
        fixture.picked.bytes === smallest || fixture.picked.strategy === 'json',
        `${fixture.name}: the picker ships the smallest or JSON`,
      );
      assert.ok(fixture.picked.tokens <= sizes['json']!.tokens, `${fixture.name}: tokens`);
    }
  });

  it('sums groups and the combined row from the payloads', () => {
    const data = JSON.parse(json.stdout) as ReportData;
    for (const group of [...data.groups, data.combined]) {
      const members = data.fixtures.filter(
        (f) => group.name === 'combined' || f.group === group.name,
      );
      const json = members.reduce((sum, f) => sum + f.candidates[0]!.size!.bytes, 0);
      const picked = members.reduce((sum, f) => sum + f.picked.bytes, 0);
      assert.equal(group.json.bytes, json);
      assert.equal(group.picked.bytes, picked);
      assert.ok(Math.abs(group.delta.bytes - (picked - json) / json) < 1e-12);
      assert.equal(
        Object.values(group.wins).reduce((a, b) => a + b, 0),
        members.length,
      );
    }
  });

  it('measures the projection scenario whole and projected, against the full JSON', () => {
    const data = JSON.parse(json.stdout) as ReportData;
    assert.equal(data.projections.length, 1);
    const [projection] = data.projections;
    assert.deepEqual(projection!.fields, ['title', 'url', 'totalScore']);
    assert.deepEqual(
      projection!.rows.map((r) => `${r.payload}:${r.encoding}`),
      [
        'full:json',
        'full:toon',
        'full:toon-flatten',
        'full:picker',
        'projected:json',
        'projected:toon',
        'projected:toon-flatten',
        'projected:picker',
      ],
    );
    const full = projection!.rows[0]!.size!.bytes;
    const projected = projection!.rows[7]!.size!.bytes;
    assert.ok(projected * 50 < full, 'projection removes most of the payload');
  });
});

describe('toonwire report on your own files', () => {
  const good = join(dir, 'api', 'runs.json');
  const lines = join(dir, 'api', 'items.jsonl');
  const bad = join(dir, 'api', 'broken.json');
  before(() => {
    mkdirSync(join(dir, 'api'), { recursive: true });
    writeFileSync(
      good,
      JSON.stringify({
        total: 3,
        items: [1, 2, 3].map((id) => ({ id, name: `run ${id}`, meta: { origin: 'API' } })),
      }),
    );
    writeFileSync(
      lines,
      [1, 2]
        .map((id) => JSON.stringify({ id, title: `t${id}`, url: `https://x/${id}` }))
        .join('\n'),
    );
    writeFileSync(bad, '{"items": [1, 2,\n  3,]}');
  });

  it('groups files by their directory and accepts JSON Lines', async () => {
    const run = await runCli(['report', good, lines, '--json']);
    assert.equal(run.code, 0, run.stderr);
    const data = JSON.parse(run.stdout) as ReportData;
    assert.equal(data.source, 'files');
    assert.deepEqual(
      data.fixtures.map((f) => [f.group, f.name, f.items]),
      [
        ['api', 'runs', 3],
        ['api', 'items', 2],
      ],
    );
  });

  it('expands a quoted glob pattern itself', async () => {
    const run = await runCli(['report', `${dir}/**/*.jsonl`, '--json']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      (JSON.parse(run.stdout) as ReportData).fixtures.map((f) => f.path),
      [lines],
    );
  });

  it('exits 1 for a pattern that matches nothing', async () => {
    const run = await runCli(['report', `${dir}/*.nothing`]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /no files match this pattern/);
  });

  it('reports the readable files, then names the invalid one with line and column and exits 1', async () => {
    const run = await runCli(['report', good, bad]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^ {2}runs\s/m, 'the good file is still reported');
    assert.equal(run.stderr, `toonwire: ${bad}:2:5: unexpected ']'; expected a value\n`);
  });

  it('exits 1 naming a file that does not exist', async () => {
    const run = await runCli(['report', join(dir, 'nope.json')]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `toonwire: ${join(dir, 'nope.json')}: cannot read: no such file\ntoonwire: nothing to report: no file could be measured\n`,
    );
    assert.equal(run.stdout, '', 'no empty report ("all 0 encodings decode back")');
  });

  it('adds a projection table for each file with --fields', async () => {
    const run = await runCli(['report', lines, '--fields', 'title,url']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Projection: items \(2 items\), fields=title,url$/m);
    assert.match(run.stdout, /^fields=title,url · picker \(/m);
  });

  it('prints Markdown tables with --markdown', async () => {
    const run = await runCli(['report', good, '--markdown']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\| payload \| items \| json \(bytes\) \|/m);
    assert.match(run.stdout, /^\|---\|---:\|/m);
  });

  it('writes one self-contained HTML page with --html', async () => {
    const page = join(dir, 'report.html');
    const run = await runCli(['report', good, lines, '--html', page]);
    assert.equal(run.code, 0, run.stderr);
    const html = readFileSync(page, 'utf8');
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /api \/ runs/);
    assert.match(html, /class="bar" style="width:100\.00%/, 'has bar charts');
    assert.match(
      html,
      /<h2>What the picker saves against JSON<\/h2>.*<div class="savings">.*<span class="name">api<\/span>.* saved<\/span>/s,
      'a summary chart of what the picker saves per tool',
    );
    const tables = html.match(/<table>/g)?.length ?? 0;
    assert.ok(tables > 0, 'the page has tables');
    assert.equal(
      html.match(/<div class="scroll" role="region" tabindex="0"><table>/g)?.length,
      tables,
      'every table scrolls in its own box, never the page',
    );
    assert.doesNotMatch(html, /<script|<link|src=|@import|url\(/, 'loads nothing from anywhere');
  });

  it('exits 2 when asked for two output formats', async () => {
    const run = await runCli(['report', good, '--json', '--markdown']);
    assert.equal(run.code, 2);
  });

  it('prints progress on stderr with --progress, one line per payload when stderr is not a terminal', async () => {
    const run = await runCli(['report', good, lines, '--progress', '--json']);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, `measuring 1/2 ${good}\nmeasuring 2/2 ${lines}\n`);
    JSON.parse(run.stdout);
  });

  it('says what TOON is and gives the bottom line in bytes and tokens first', async () => {
    const run = await runCli(['report', good, lines]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /TOON \(Token-Oriented Object Notation\) writes the same data as JSON/,
    );
    assert.match(
      run.stdout,
      /Shipping the picker's choice instead of JSON (saves|costs) [\d.]+% (of|more) bytes and [\d.]+% (of |more )?tokens\s+on these 2\s+payloads; TOON won \d of 2\./,
    );
    assert.match(run.stdout, /Δ total is the figure to quote/);
    const spdx = createRequire(import.meta.url).resolve('spdx-license-list/spdx.json');
    const bytes = await runCli(['report', '--by', 'bytes', spdx]);
    assert.match(bytes.stdout, /Picking by bytes cost tokens on 1 of 1 payloads/);
    const auto = await runCli(['report', spdx, '--json']);
    assert.equal((JSON.parse(auto.stdout) as ReportData).fixtures[0]!.picked.strategy, 'json');
  });

  it('keeps every line within COLUMNS', async () => {
    const widths = ['60', '80', '100'];
    const runs = await Promise.all(
      widths.map((columns) =>
        runCli(['report', good, lines, '--fields', 'title,url'], { env: { COLUMNS: columns } }),
      ),
    );
    for (const [index, run] of runs.entries()) {
      const columns = widths[index]!;
      assert.equal(run.code, 0, run.stderr);
      const longest = Math.max(...run.stdout.split('\n').map((line) => [...line].length));
      assert.ok(longest <= Number(columns), `${longest} > ${columns}`);
    }
  });

  it('warns on stderr about a --fields name no item has, and claims no size for it', async () => {
    const run = await runCli(['report', lines, '--fields', 'nmae']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /^toonwire: warning: .*items\.jsonl: no item has the field 'nmae' \(closest: '\w+'\); .*the projection is left out/,
    );
    assert.doesNotMatch(run.stdout, /Projection:/);
    const partly = await runCli(['report', lines, '--fields', 'title,tilte']);
    assert.match(
      partly.stderr,
      /no item has the field 'tilte' \(closest: 'title'\); check the spelling/,
    );
    assert.match(partly.stdout, /Projection: items/);
  });

  it('measures the other files when one cannot be measured, deep ones included', async () => {
    let deep = '1';
    for (let i = 0; i < 5000; i++) deep = `[${deep}]`;
    const deepFile = join(dir, 'api', 'deep.json');
    writeFileSync(deepFile, deep);
    const run = await runCli(['report', good, bad, deepFile, '--json']);
    assert.equal(run.code, 1);
    const data = JSON.parse(run.stdout) as ReportData;
    assert.deepEqual(
      data.fixtures.map((f) => [f.name, f.picked.strategy]),
      [
        ['runs', data.fixtures[0]!.picked.strategy],
        ['deep', 'json'],
      ],
    );
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
  });

  it('escapes Markdown in the legend and in file names', async () => {
    const odd = join(dir, 'api', 'my_*odd*.json');
    writeFileSync(odd, JSON.stringify([{ a: 1 }, { a: 2 }]));
    const run = await runCli(['report', odd, '--markdown']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /my\\_\\\*odd\\\*/);
    assert.match(run.stdout, /^\\\* the candidate the picker shipped/m);
  });
});
