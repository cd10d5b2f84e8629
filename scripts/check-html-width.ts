// Checks in a real headless browser that the report's HTML page reads on a phone and on a
// desktop: writes the report for the sample corpus, loads it in Chromium at each width (390 and
// 1280 px by default) with a script that measures the page after layout, and fails when the page
// scrolls sideways, when an element outside a table's own scroll box sticks out, when a saving
// cell of a table (Δ against JSON: every payload's, every tool's) is not on screen without
// scrolling, when a bar's colour is in no legend above it, or when the summary chart is missing. CI runs it (.ci/run installs Debian's `chromium` when it is absent);
// elsewhere, without Chromium, it says so and exits 0.
//
// Run: npm run build && node --import tsx scripts/check-html-width.ts [--screenshots DIR] [width...]
// With --screenshots, it also saves DIR/report-<width>.png of the top of the page (keep them out
// of git).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const shotsAt = args.indexOf('--screenshots');
const screenshots = shotsAt >= 0 ? path.resolve(args[shotsAt + 1] ?? '.') : undefined;
const numbers = args
  .filter((arg, i) => /^\d+$/.test(arg) && (shotsAt < 0 || i !== shotsAt + 1))
  .map(Number);
const widths = numbers.length > 0 ? numbers : [390, 1280];
/** A hang guard for one browser run, not a speed limit. */
const BROWSER_LIMIT_MS = 5 * 60_000;

const browser = ['chromium', 'chromium-browser', 'google-chrome'].find(
  (name) => spawnSync('which', [name]).status === 0,
);
if (browser === undefined) {
  if (process.env['CI']) {
    console.error('no chromium on PATH in CI: .ci/run installs it (apt-get install -y chromium)');
    process.exit(1);
  }
  console.log('skipped: no chromium on PATH (apt-get install -y chromium)');
  process.exit(0);
}

// The measurement runs in the page after layout and writes its verdict into the DOM. Tables may
// be wider than the screen inside their .scroll box; everything else must fit the viewport.
const PROBE = `<script>addEventListener('load',()=>{
const w=innerWidth;const out=[];const doc=document.documentElement;
if(doc.scrollWidth>w)out.push('page '+doc.scrollWidth+'>'+w);
document.querySelectorAll('body *').forEach((e)=>{
  if(e.closest('.scroll')&&!e.classList.contains('scroll'))return;
  if(e.tagName==='SCRIPT'||e.id==='verdict')return;
  const r=e.getBoundingClientRect();
  if(r.width>0&&r.right>w+0.5)out.push(e.tagName.toLowerCase()+(e.className?'.'+e.className:'')+' right '+Math.round(r.right));
});
document.querySelectorAll('.bar').forEach((e)=>{const box=e.parentElement.getBoundingClientRect();if(e.getBoundingClientRect().right>box.right+0.5)out.push('a bar longer than its box')});
const saving=document.querySelectorAll('td.saving');
if(saving.length===0)out.push('no saving column');
saving.forEach((e)=>{const r=e.getBoundingClientRect();if(r.left<-0.5||r.right>w+0.5)out.push('a saving off screen: '+e.textContent+' at '+Math.round(r.left)+'..'+Math.round(r.right))});
const legends=[...document.querySelectorAll('.legend')];
const colour=(e)=>getComputedStyle(e).backgroundColor;
document.querySelectorAll('.bar').forEach((bar)=>{
  const legend=legends.filter((l)=>l.compareDocumentPosition(bar)&Node.DOCUMENT_POSITION_FOLLOWING).pop();
  const keys=legend?[...legend.querySelectorAll('i')].map(colour):[];
  if(!keys.includes(colour(bar)))out.push('a bar colour in no legend above it: '+colour(bar));
});
const chart=document.querySelector('.savings');
if(!chart||chart.querySelectorAll('.bar').length<2)out.push('no summary chart');
const p=document.createElement('pre');p.id='verdict';
p.textContent='WIDTH '+w+' '+(out.length?[...new Set(out)].slice(0,20).join('; '):'OK');
parent.document.body.appendChild(p)})</script>`;

/**
 * Headless Chromium's windows are at least 500 px wide, so the page is shown in a frame of the
 * exact width instead: the frame is the page's viewport (its media queries and innerWidth see
 * that width), as a phone's screen would be. The frame's content is inline (srcdoc), so the probe
 * inside it can write its verdict into this outer page.
 */
function framed(html: string, width: number, height: number): string {
  const escaped = html.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return `<!doctype html><html><body style="margin:0;background:#9ca3af"><iframe style="display:block;width:${width}px;height:${height}px;border:0;background:#fff" srcdoc="${escaped}"></iframe></body></html>`;
}

function chromium(page: string, width: number, height: number, extra: string[]): string {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'toonwire-chromium-'));
  try {
    const run = spawnSync(
      browser!,
      [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        `--window-size=${Math.max(width, 500)},${height}`,
        '--virtual-time-budget=5000',
        ...extra,
        `file://${page}`,
      ],
      { encoding: 'utf8', timeout: BROWSER_LIMIT_MS },
    );
    return `${run.stdout}\n${run.stderr}`;
  } finally {
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toonwire-html-'));
try {
  const page = path.join(dir, 'report.html');
  const report = spawnSync(
    process.execPath,
    [path.join(root, 'dist/cli/main.js'), 'report', '--fields', 'title,url', '--html', page],
    { cwd: root, encoding: 'utf8' },
  );
  if (!fs.existsSync(page)) throw new Error(`the report wrote no page: ${report.stderr}`);
  const html = fs.readFileSync(page, 'utf8');
  const probed = html.replace('</body>', `${PROBE}</body>`);
  let failed = false;
  for (const width of widths) {
    const probePage = path.join(dir, `probe-${width}.html`);
    fs.writeFileSync(probePage, framed(probed, width, 900));
    const output = chromium(probePage, width, 900, ['--dump-dom']);
    const verdict = /WIDTH \d+ [^<]*/.exec(output)?.[0];
    if (verdict === undefined) throw new Error(`no verdict from ${browser}: ${output.slice(-800)}`);
    console.log(verdict.trim().replaceAll('&gt;', '>'));
    // The browser's own width must be the one asked for (an old headless mode clamps it).
    if (!verdict.startsWith(`WIDTH ${width} `) || !verdict.trim().endsWith(' OK')) failed = true;
    if (screenshots) {
      fs.mkdirSync(screenshots, { recursive: true });
      const shot = path.join(screenshots, `report-${width}.png`);
      const shotPage = path.join(dir, `shot-${width}.html`);
      fs.writeFileSync(shotPage, framed(html, width, 2400));
      chromium(shotPage, width, 2400, [`--screenshot=${shot}`]);
      console.log(`  screenshot: ${shot}`);
    }
  }
  process.exitCode = failed ? 1 : 0;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
