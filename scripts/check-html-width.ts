// Checks in a real headless browser that the report's HTML page has no horizontal overflow at
// 1400 px: writes the report for the sample corpus, loads it in Chromium with a script that
// measures the page and every table, and prints what overflows. Not a test (it needs
// Chromium: `apt-get install -y chromium`); it says so and exits 0 when Chromium is absent.
// Run: npm run build && node --import tsx scripts/check-html-width.ts [width]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const width = Number(process.argv[2] ?? 1400);
const browser = ['chromium', 'chromium-browser', 'google-chrome'].find(
  (name) => spawnSync('which', [name]).status === 0,
);
if (browser === undefined) {
  console.log('skipped: no chromium on PATH (apt-get install -y chromium)');
  process.exit(0);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toonwire-html-'));
try {
  const page = path.join(dir, 'report.html');
  const report = spawnSync(
    process.execPath,
    [path.join(root, 'dist/cli/main.js'), 'report', '--fields', 'title,url', '--html', page],
    {
      cwd: root,
    },
  );
  if (!fs.existsSync(page)) throw new Error(`the report wrote no page: ${report.stderr}`);
  // The measurement runs in the page after layout and writes its verdict into the DOM.
  const probe = `<script>addEventListener('load',()=>{const w=innerWidth;const out=[];const doc=document.documentElement;if(doc.scrollWidth>w)out.push('page '+doc.scrollWidth+'>'+w);document.querySelectorAll('table,.chart,h1,h2,p').forEach((e,i)=>{const r=e.getBoundingClientRect();if(r.right>w+0.5)out.push(e.tagName+'#'+i+' right '+Math.round(r.right));if(e.scrollWidth>e.clientWidth+1&&e.tagName==='TABLE')out.push('table#'+i+' scroll '+e.scrollWidth+'>'+e.clientWidth)});const p=document.createElement('pre');p.id='verdict';p.textContent='WIDTH '+w+' '+(out.length?out.join('; '):'OK');document.body.appendChild(p)})</script>`;
  fs.writeFileSync(page, fs.readFileSync(page, 'utf8').replace('</body>', `${probe}</body>`));
  const run = spawnSync(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--window-size=${width},900`,
      '--virtual-time-budget=3000',
      '--dump-dom',
      `file://${page}`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  const verdict = /WIDTH \d+ [^<]*/.exec(run.stdout)?.[0];
  if (verdict === undefined)
    throw new Error(`no verdict from ${browser}: ${run.stderr.slice(0, 500)}`);
  console.log(verdict);
  process.exitCode = verdict.endsWith(' OK') ? 0 : 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
