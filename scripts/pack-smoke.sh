#!/usr/bin/env bash
# Pack smoke test: what a user gets from `npm install toonwire`, tried outside the repository.
#
#   bash scripts/pack-smoke.sh           build (through prepack), pack, install, try
#   bash scripts/pack-smoke.sh --built   dist/ is fresh already (CI builds once): pack without prepack
#
# It packs the package, checks what the tarball holds (dist and docs; no corpus, no src, no source
# maps), installs it with the peer dependencies into a new project in a temporary directory,
# imports every subpath, requires each where Node can require ESM, runs the bin, and
# type-checks a file that imports every subpath with tsc. The peers (all of package.json's
# peerDependencies) are pinned to the versions in this checkout's node_modules, so the npm cache
# usually serves them. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

BUILT=0
if [ "${1:-}" = "--built" ]; then BUILT=1; fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/toonwire-pack-smoke.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "npm pack"
if [ "$BUILT" = 1 ]; then
  [ -f dist/index.js ] || { echo "dist/ is missing: run npm run build first, or drop --built" >&2; exit 1; }
  TARBALL_NAME=$(npm pack --ignore-scripts --silent --pack-destination "$WORK")
else
  TARBALL_NAME=$(npm pack --silent --pack-destination "$WORK" | tail -n 1)
fi
TARBALL="$WORK/$TARBALL_NAME"
tar -tzf "$TARBALL" | sort > "$WORK/contents.txt"
node -e '
  const fs = require("node:fs");
  const files = fs.readFileSync(process.argv[1], "utf8").trim().split("\n");
  const size = fs.statSync(process.argv[2]).size;
  const problems = [];
  const must = ["package/package.json", "package/README.md", "package/LICENSE",
    "package/dist/index.js", "package/dist/index.js.map", "package/dist/index.d.ts", "package/dist/cli/main.js", "package/docs/codec.md"];
  for (const file of must) if (!files.includes(file)) problems.push(`missing ${file}`);
  for (const file of files) {
    // The bundled root carries its own map (the tsc output inside it); any other map would point
    // at src/, which is not in the package.
    if (file.endsWith(".map") && file !== "package/dist/index.js.map") problems.push(`a source map: ${file}`);
    if (/^package\/(corpus|src|test|bench|scripts|examples)\//.test(file)) problems.push(`not for the package: ${file}`);
  }
  console.log(`${process.argv[3]}: ${files.length} files, ${(size / 1024).toFixed(0)} KB packed`);
  if (problems.length > 0) { console.error(problems.join("\n")); process.exit(1); }
' "$WORK/contents.txt" "$TARBALL" "$TARBALL_NAME"

step "install the tarball and the peers into a new project ($WORK/app)"
mkdir "$WORK/app"
cd "$WORK/app"
cat > package.json <<'JSON'
{ "name": "toonwire-pack-smoke", "version": "0.0.0", "private": true, "type": "module" }
JSON
# Every peer dependency the package declares, plus what a TypeScript user of every subpath adds;
# each at the version this checkout has installed (else the declared range). content-disposition
# 0.5 and its @types too: @types/koa names `contentDisposition.Options` from whichever copy is
# hoisted, and the versions that ship their own types (1 and later, Koa 3's and Express 5's)
# have none, an error between those packages that any Koa user type-checking libraries meets
# with or without toonwire (the repository's own type-check skips library files).
mapfile -t PEERS < <(node -e '
  const root = process.argv[1];
  const manifest = require(`${root}/package.json`);
  const names = [...Object.keys(manifest.peerDependencies ?? {}), "@types/express", "@types/koa", "@types/node", "typescript", "reflect-metadata", "rxjs"];
  for (const name of new Set(names)) {
    let version;
    try { version = require(`${root}/node_modules/${name}/package.json`).version; } catch {}
    console.log(`${name}@${version ?? manifest.peerDependencies?.[name] ?? "latest"}`);
  }
  console.log("content-disposition@0.5.4");
  console.log("@types/content-disposition@0.5.9");
' "$ROOT")
npm install --no-audit --no-fund --prefer-offline --loglevel=error "$TARBALL" "${PEERS[@]}"
echo "installed toonwire $(node -p "require('./node_modules/toonwire/package.json').version") with ${PEERS[*]}"

SUBPATHS='["toonwire", "toonwire/mcp", "toonwire/http", "toonwire/fastify", "toonwire/express", "toonwire/hono", "toonwire/koa", "toonwire/nest"]'

step "import every subpath"
node --input-type=module -e "
  for (const specifier of $SUBPATHS) {
    const module = await import(specifier);
    const names = Object.keys(module);
    if (names.length === 0) throw new Error(specifier + ': no exports');
    console.log(specifier.padEnd(18), names.length, 'exports');
  }
  const { encode, decode, pick, parseCompact } = await import('toonwire');
  const rows = { items: [{ id: 1, name: 'Ada' }, { id: 2, name: 'Bob' }] };
  if (JSON.stringify(decode(encode(rows))) !== JSON.stringify(rows)) throw new Error('round trip');
  const picked = pick(rows);
  if (JSON.stringify(parseCompact(picked.text, picked.strategy)) !== JSON.stringify(rows)) throw new Error('pick');
  console.log('encode/decode and pick/parseCompact round-trip');
"

step "require every subpath (where Node can require ESM)"
node --disable-warning=ExperimentalWarning --input-type=commonjs -e "
  if (!process.features.require_module) {
    console.log('skipped: Node ' + process.version + ' cannot require ESM (20.19+ and 22.12+ can); use import()');
    process.exit(0);
  }
  (async () => {
    for (const specifier of $SUBPATHS) {
      const required = require(specifier);
      const imported = await import(specifier);
      // require(esm) adds __esModule beside a default export, for transpiled-CJS interop.
      const names = (m) => Object.keys(m).filter((name) => name !== '__esModule').sort().join();
      if (names(required) !== names(imported)) throw new Error(specifier + ': require and import differ');
      console.log('require(' + JSON.stringify(specifier) + ') ok');
    }
  })().catch((error) => { console.error(error); process.exit(1); });
"

step "the bin"
./node_modules/.bin/toonwire --help > help.txt
head -n 4 help.txt
printf '{"items":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}' | ./node_modules/.bin/toonwire encode
status=0
./node_modules/.bin/toonwire report > /dev/null 2> report.err || status=$?
if [ "$status" != 2 ] || ! grep -q 'sample corpus is not installed' report.err; then
  echo "toonwire report without arguments: expected exit 2 and the no-corpus message, got $status:" >&2
  cat report.err >&2
  exit 1
fi
echo "report without arguments (no corpus installed): exit 2, $(cat report.err)"

step "type-check a file that imports every subpath (tsc, module nodenext)"
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "noEmit": true,
    "skipLibCheck": false,
    "types": ["node"]
  },
  "files": ["check.ts", "check-require.cts"]
}
JSON
cat > check.ts <<'TS'
import { decode, encode, type JsonValue, pick, ToonDecodeError } from 'toonwire';
import * as http from 'toonwire/http';
import * as mcp from 'toonwire/mcp';
import fastifyToon from 'toonwire/fastify';
import { toon as expressToon } from 'toonwire/express';
import { toon as honoToon } from 'toonwire/hono';
import { toon as koaToon } from 'toonwire/koa';
import { ToonExceptionFilter, useToon } from 'toonwire/nest';

const value: JsonValue = decode(encode({ a: [1, 2, 3] }));
const text: string = pick(value).text;
const error: typeof ToonDecodeError = ToonDecodeError;
export const used = [text, error, http, mcp, fastifyToon, expressToon, honoToon, koaToon, ToonExceptionFilter, useToon];
TS
cat > check-require.cts <<'TS'
// A CommonJS file requiring the ESM package: what require(esm) users write.
import toonwire = require('toonwire');
export const text: string = toonwire.encode({ a: 1 });
TS
./node_modules/.bin/tsc -p tsconfig.json
echo "tsc $(./node_modules/.bin/tsc --version | cut -d' ' -f2): check.ts and check-require.cts type-check"

step "pack smoke test passed"
