import fs from 'node:fs';
import { encode } from './src/index.js';
import { estimateTokens } from './src/compact/estimate.js';
import { shapeBound } from './src/compact/shape-bound.js';
import { byteLength } from './src/compact/size.js';
import { loadNpmDatasets } from './bench/datasets.js';
import { loadDocuments } from './bench/corpus.js';
const manifest = JSON.parse(fs.readFileSync('corpus/manifest.json','utf8'));
const ds = [...loadNpmDatasets(), ...manifest.fixtures.map((f:any)=>({name:'corpus/'+f.file, value: JSON.parse(fs.readFileSync('corpus/'+f.file,'utf8'))})), ...loadDocuments().map(d=>({name:'shared/'+d.name, value:d.value}))];
for (const d of ds) {
  const j = JSON.stringify(d.value); const t = encode(d.value);
  const b = shapeBound(d.value)!;
  const ej = estimateTokens(j), et = estimateTokens(t);
  const skip = b.bytesSaved < byteLength(j)*0.5 && b.tokensSaved < b.jsonTokens*0.1+3;
  const pass = byteLength(t) <= byteLength(j)*0.5 || et <= ej*0.9-3;
  console.log(d.name.padEnd(60), 'bytes', byteLength(j)-byteLength(t), '<=', b.bytesSaved, 'tok', ej-et, '<=', b.tokensSaved.toFixed(0), 'jsonTok', ej, '>=', b.jsonTokens, skip?'SKIP':'', pass?'PASS':'', (skip&&pass)?'VIOLATION':'', (ej-et>b.tokensSaved || byteLength(j)-byteLength(t) > b.bytesSaved || b.jsonTokens>ej)?'BOUNDFAIL':'');
}
