// The real tokenizers the picker's promise is checked against: eight vocabularies that ship
// inside npm packages (devDependencies), so nothing is downloaded at run time.
//
// - o200k_base and cl100k_base: gpt-tokenizer (OpenAI's GPT-4o/GPT-5 and GPT-4 vocabularies);
// - claude: @anthropic-ai/tokenizer (Anthropic's published Claude vocabulary, through tiktoken);
// - llama3, qwen3, deepseek-v3, gemma3: the models' own tokenizer.json, shipped by the
//   @lenml/tokenizer-* packages and run by @lenml/tokenizers (a port of transformers.js);
// - mistral: mistral-tokenizer-js (the Mistral 7B sentencepiece vocabulary).
//
// The packages' merge loops allocate a string key per candidate pair, and Gemma 3 and Mistral
// tokenize a whole text as one sentencepiece "word" (no pre-tokenizer splits it): tens of
// microseconds per character, and seconds to build the string-keyed tables. The BPE models run
// here through `MergeTable`, the same merge algorithm (lowest rank first, leftmost first on
// ties) over integer ids, inside the packages' own normalizers and pre-tokenizers; a test
// checks it against the packages' own encoders on real text.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { loadTokenizer } from '../../src/compact/index.js';

const require = createRequire(import.meta.url);

/** A tokenizer's name and its exact token counter. */
export interface RealTokenizer {
  name: string;
  count(text: string): number;
}

/** The names, in the order {@link loadRealTokenizers} returns them. */
export const REAL_TOKENIZER_NAMES = [
  'o200k',
  'cl100k',
  'claude',
  'llama3',
  'mistral',
  'qwen3',
  'deepseek-v3',
  'gemma3',
] as const;

let loading: Promise<RealTokenizer[]> | undefined;

/**
 * Loads the eight tokenizers once per process (about ten seconds: the vocabularies are large).
 *
 * @example
 * for (const { name, count } of await loadRealTokenizers()) console.log(name, count('hello'));
 */
export function loadRealTokenizers(): Promise<RealTokenizer[]> {
  loading ??= loadAll();
  return loading;
}

async function loadAll(): Promise<RealTokenizer[]> {
  const o200k = await loadTokenizer('o200k_base');
  const cl100k = await loadTokenizer('cl100k_base');
  return [
    { name: 'o200k', count: o200k },
    { name: 'cl100k', count: cl100k },
    { name: 'claude', count: await claude() },
    { name: 'llama3', count: await lenml('llama3', true) },
    { name: 'mistral', count: await mistral() },
    { name: 'qwen3', count: await lenml('qwen3', true) },
    { name: 'deepseek-v3', count: await lenml('deepseek_v3', true) },
    { name: 'gemma3', count: await lenml('gemma3', true) },
  ];
}

async function claude(): Promise<(text: string) => number> {
  const { getTokenizer } = require('@anthropic-ai/tokenizer') as {
    getTokenizer(): { encode(text: string, allowedSpecial: 'all'): Uint32Array };
  };
  // The package's countTokens builds (and frees) a tiktoken instance per call; build it once.
  const tokenizer = getTokenizer();
  return (text) => tokenizer.encode(text.normalize('NFKC'), 'all').length;
}

interface LenmlTokenizer {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  model: {
    bpe(word: string): string[];
    tokens_to_ids: Map<string, number>;
    vocab: string[];
  };
}

/**
 * A @lenml tokenizer from its package's tokenizer.json. With `fastMerges` its BPE model merges
 * through {@link MergeTable}, built from the merges the loader is then not given (building its
 * own string-keyed table is most of the loading time).
 */
async function lenml(name: string, fastMerges: boolean): Promise<(text: string) => number> {
  const { TokenizerLoader } = (await import('@lenml/tokenizers')) as unknown as {
    TokenizerLoader: {
      fromPreTrained(files: { tokenizerJSON: unknown; tokenizerConfig: unknown }): LenmlTokenizer;
    };
  };
  const read = (file: string): Record<string, unknown> =>
    JSON.parse(fs.readFileSync(require.resolve(`@lenml/tokenizer-${name}/models/${file}`), 'utf8'));
  const tokenizerJSON = read('tokenizer.json') as { model: { merges: unknown[] } };
  const merges = tokenizerJSON.model.merges;
  if (fastMerges) tokenizerJSON.model.merges = [];
  const tokenizer = TokenizerLoader.fromPreTrained({
    tokenizerJSON,
    tokenizerConfig: read('tokenizer_config.json'),
  });
  if (fastMerges) {
    const model = tokenizer.model;
    const table = new MergeTable(model.tokens_to_ids, model.vocab.length);
    merges.forEach((merge, rank) => {
      const [left, right] = typeof merge === 'string' ? merge.split(' ', 2) : (merge as string[]);
      table.add(left!, right!, rank);
    });
    const cache = new Map<string, string[]>();
    model.bpe = (word) => {
      let tokens = cache.get(word);
      if (tokens === undefined) {
        tokens = table.apply(Array.from(word), (id, symbol) => model.vocab[id] ?? symbol);
        if (word.length < 256 && cache.size < 100_000) cache.set(word, tokens);
      }
      return tokens;
    };
  }
  return (text) => tokenizer.encode(text, { add_special_tokens: false }).length;
}

/** A variable, so the type checker does not look for the untyped package's declarations. */
const MISTRAL = 'mistral-tokenizer-js';

interface MistralModule {
  encode(text: string, bos: boolean, space: boolean): number[];
  vocabById: string[];
  vocabByString: Map<string, number>;
  merges: Map<string, number>;
}

async function mistral(): Promise<(text: string) => number> {
  const tokenizer = (await import(MISTRAL)).default as MistralModule;
  const merges = new MergeTable(tokenizer.vocabByString, tokenizer.vocabById.length);
  for (const [pair, rank] of tokenizer.merges) {
    const space = pair.indexOf(' ', 1);
    merges.add(pair.slice(0, space), pair.slice(space + 1), rank);
  }
  const space = tokenizer.vocabById[28705]!;
  const utf8 = new TextEncoder();
  // The package's encode(text, false, true): a leading space, spaces as ▁, and characters
  // outside the vocabulary as their UTF-8 bytes (tokens <0xNN>), each a symbol that never merges.
  return (text) => {
    if (text.length === 0) return 0;
    const symbols = Array.from(` ${text}`.replaceAll(' ', space));
    let fallback = 0;
    for (const symbol of symbols) {
      if (!tokenizer.vocabByString.has(symbol)) fallback += utf8.encode(symbol).length - 1;
    }
    return merges.apply(symbols, () => '').length + fallback;
  };
}

/**
 * A BPE merge table over token ids, applied like the packages do (the pair of lowest rank
 * first, the leftmost of equal pairs first), with typed arrays instead of string keys.
 */
class MergeTable {
  private readonly ranks = new Map<number, number>();
  private readonly results = new Map<number, number>();

  constructor(
    private readonly ids: Map<string, number>,
    private readonly size: number,
  ) {}

  add(left: string, right: string, rank: number): void {
    const a = this.ids.get(left);
    const b = this.ids.get(right);
    const merged = this.ids.get(left + right);
    if (a === undefined || b === undefined || merged === undefined) return;
    const key = a * this.size + b;
    if (this.ranks.has(key)) return;
    this.ranks.set(key, rank);
    this.results.set(key, merged);
  }

  /** The symbols after every merge; `name(id, symbol)` spells a symbol that has an id. */
  apply(symbols: string[], name: (id: number, symbol: string) => string): string[] {
    const n = symbols.length;
    if (n < 2) return symbols;
    const id = new Int32Array(n);
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      id[i] = this.ids.get(symbols[i]!) ?? -1;
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    const heap = new Heap();
    const rankAt = (left: number): number => {
      const right = next[left]!;
      if (right < 0 || id[left]! < 0 || id[right]! < 0) return -1;
      return this.ranks.get(id[left]! * this.size + id[right]!) ?? -1;
    };
    const push = (left: number): void => {
      const rank = rankAt(left);
      if (rank >= 0) heap.push(rank * n + left, left);
    };
    for (let i = 0; i + 1 < n; i++) push(i);
    const alive = new Uint8Array(n).fill(1);
    while (heap.length > 0) {
      const [priority, left] = heap.pop();
      if (!alive[left]) continue;
      const rank = Math.floor(priority / n);
      if (rankAt(left) !== rank) continue;
      const right = next[left]!;
      id[left] = this.results.get(id[left]! * this.size + id[right]!)!;
      alive[right] = 0;
      next[left] = next[right]!;
      if (next[left]! >= 0) prev[next[left]!] = left;
      if (prev[left]! >= 0) push(prev[left]!);
      push(left);
    }
    const out: string[] = [];
    for (let i = 0; i >= 0; i = next[i]!) {
      out.push(id[i]! >= 0 ? name(id[i]!, symbols[i]!) : symbols[i]!);
    }
    return out;
  }
}

/** A binary min-heap of (priority, index) pairs. */
class Heap {
  private priorities: number[] = [];
  private indexes: number[] = [];

  get length(): number {
    return this.priorities.length;
  }

  push(priority: number, index: number): void {
    const p = this.priorities;
    const x = this.indexes;
    let at = p.length;
    p.push(priority);
    x.push(index);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (p[parent]! <= priority) break;
      p[at] = p[parent]!;
      x[at] = x[parent]!;
      at = parent;
    }
    p[at] = priority;
    x[at] = index;
  }

  pop(): [number, number] {
    const p = this.priorities;
    const x = this.indexes;
    const top: [number, number] = [p[0]!, x[0]!];
    const lastPriority = p.pop()!;
    const lastIndex = x.pop()!;
    const size = p.length;
    if (size > 0) {
      let at = 0;
      for (;;) {
        let child = 2 * at + 1;
        if (child >= size) break;
        if (child + 1 < size && p[child + 1]! < p[child]!) child++;
        if (p[child]! >= lastPriority) break;
        p[at] = p[child]!;
        x[at] = x[child]!;
        at = child;
      }
      p[at] = lastPriority;
      x[at] = lastIndex;
    }
    return top;
  }
}

/**
 * The packages' own counters for the tokenizers {@link loadRealTokenizers} runs through its
 * faster merge loop, to check that loop against them (`names`: which of them).
 */
export async function referenceCounters(
  names: readonly string[] = ['mistral', 'llama3', 'qwen3', 'deepseek-v3', 'gemma3'],
): Promise<RealTokenizer[]> {
  const out: RealTokenizer[] = [];
  for (const name of names) {
    if (name === 'mistral') {
      const tokenizer = (await import(MISTRAL)).default as MistralModule;
      out.push({ name, count: (text) => tokenizer.encode(text, false, true).length });
    } else {
      out.push({ name, count: await lenml(name.replace('-', '_'), false) });
    }
  }
  return out;
}
