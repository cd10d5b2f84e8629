// Lexical search over tool definitions, for `toonwire_find_tools`: BM25F over the words of each
// tool's name, server prefix, title, description and parameters (stemmed, with a few synonyms,
// prefixes and one-letter typos), and the names closest to a misspelled one, for
// `toonwire_call_tool`'s "unknown tool" answer. test/mcp/tool-search-quality.test.ts measures it
// against plain BM25 on 100 realistic needs.

import { isPlainObject } from '../../../codec/objects.js';
import { closest, editDistance } from '../../../compact/closest.js';

export { editDistance };

/** A tool as the search sees it: its definition, of which only the words are indexed. */
export interface SearchableTool {
  name: string;
  title?: unknown;
  description?: unknown;
  inputSchema?: unknown;
}

/**
 * Words too common in tool descriptions to tell tools apart. BM25's IDF discounts them anyway,
 * but a catalog of a dozen tools is too small for that to be reliable.
 */
const STOP_WORDS = new Set(
  `a about all an and any are as at be been being but by can could do does did for from has have
  how i if in into is it its me my of on or our should so some such than that the their them then
  there these they this those to use used uses was we were what when where which while who will
  with would you your`.split(/\s+/),
);

/** How deep parameter names are collected from nested object and array schemas. */
const PARAMETER_DEPTH = 4;

/** The parts of a definition that are indexed, each scored as its own field. */
type Field = 'name' | 'server' | 'title' | 'description' | 'parameters' | 'parameterText';
const FIELDS: readonly Field[] = [
  'name',
  'server',
  'title',
  'description',
  'parameters',
  'parameterText',
];

/** The settings of the ranking: `DEFAULT_RANKING`, or another one to compare it with. */
export interface Ranking {
  /** How much an occurrence in each field counts, against one in the description. */
  weights: Record<Field, number>;
  /** BM25's length normalisation per field (0: none, 1: full). */
  b: Record<Field, number>;
  /** BM25's term-frequency saturation. */
  k1: number;
  /** What a query word matching only the start of an indexed word counts (`dir`, `directory`). */
  prefix: number;
  /** What a query word within a small typo of an indexed word counts (`directroy`). */
  fuzzy: number;
  /** Whether words are reduced to a stem beyond plural endings (`staged`, `staging` → `stage`). */
  suffixes: boolean;
  /** What a query word's synonym counts (`folder` finds `directory`); 0 for none. */
  synonym: number;
}

/**
 * Words that tool descriptions and the people (and models) looking for tools use for the same
 * thing: general software vocabulary, not any one server's.
 */
const SYNONYMS: readonly string[] = [
  'directory folder dir',
  'delete remove erase',
  'create make new',
  'write save store',
  'search find lookup query',
  'get fetch retrieve obtain',
  'edit modify change update',
  'move rename',
  'run execute exec',
  'information info metadata details',
  'configuration config settings',
  'image picture photo',
  'sum add plus total',
  'memory remember recall',
  'time date clock',
  'error failure',
];

/**
 * The ranking `toonwire_find_tools` uses. Issue 29: chosen from grids of settings (2,304, then
 * 1,296 around the best) on the even half of test/mcp/fixtures/tool-search/needs.json (where settings tied, the middle one),
 * the odd half held out; 5-fold cross-validation of that choice over all 100 needs estimated
 * 66% / 87% / 91% at top-1/3/5.
 */
export const DEFAULT_RANKING: Ranking = {
  weights: {
    name: 1,
    server: 0.5,
    title: 1,
    description: 1,
    parameters: 0.25,
    parameterText: 0.25,
  },
  b: { name: 0.3, server: 0, title: 0.3, description: 0.5, parameters: 0.5, parameterText: 0.5 },
  k1: 0.8,
  prefix: 0.25,
  fuzzy: 0.4,
  suffixes: true,
  synonym: 0.8,
};

/**
 * The words of a text, as both the index and the query see them: split at anything that is not
 * a letter or a digit (snake_case, kebab-case, `server__tool`, dots, spaces) and at camelCase
 * boundaries, lowercased.
 *
 * @example
 * toolWords('getFileInfo read_text_file list-allowed HTTPServer'); // ['get', 'file', 'info', 'read', 'text', 'file', 'list', 'allowed', 'http', 'server']
 */
export function toolWords(text: string): string[] {
  const words: string[] = [];
  for (const part of text.split(/[^\p{L}\p{N}]+/u)) {
    if (part === '') continue;
    const split = part
      .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
      .split(' ');
    for (const word of split) words.push(word.toLowerCase());
  }
  return words;
}

/**
 * A word reduced to a common stem, so that "files" finds "file" and "entities" finds "entity";
 * `null` for a stop word. Deliberately crude (plural endings only): tool vocabularies are small
 * and a wrong merge costs more than a missed one.
 *
 * @example
 * [stem('entities'), stem('searches'), stem('files'), stem('class'), stem('the')]; // ['entity', 'search', 'file', 'class', null]
 */
export function stem(word: string): string | null {
  if (STOP_WORDS.has(word)) return null;
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word))
    return word.slice(0, -1);
  return word;
}

/**
 * A stemmed word with the common verb and noun endings taken off as well, so that "staged",
 * "staging" and "stage" meet: `-ing`, `-ed`, `-ion`, `-er`, `-ly`, then a final `e`, on words that
 * keep at least three letters.
 *
 * @example
 * ['staged', 'staging', 'stage', 'modified', 'conversion', 'converts', 'running'].map((w) => root(stem(w)!)); // ['stag', 'stag', 'stag', 'modifi', 'convers', 'convert', 'run']
 */
export function root(word: string): string {
  let base = word;
  const ending = /(?:ing|ed|ion|er|ly)$/.exec(base);
  if (ending !== null && base.length - ending[0].length >= 3) {
    base = base.slice(0, -ending[0].length);
    // running → run, stopped → stop
    if (/([^aeiouslz])\1$/.test(base)) base = base.slice(0, -1);
  }
  if (base.length > 3 && base.endsWith('e')) base = base.slice(0, -1);
  return base;
}

/**
 * The property names of a JSON Schema and of the object schemas nested in it (array items,
 * `anyOf`/`oneOf`/`allOf` branches), down to a few levels.
 *
 * @example
 * parameterNames({ type: 'object', properties: { path: { type: 'string' }, edits: { type: 'array', items: { properties: { oldText: {} } } } } }); // ['path', 'edits', 'oldText']
 */
export function parameterNames(schema: unknown, depth = PARAMETER_DEPTH): string[] {
  return schemaParts(schema, depth).names;
}

/**
 * The texts of a JSON Schema's properties, nested ones too: their descriptions, titles and the
 * string values of their enums.
 *
 * @example
 * parameterTexts({ properties: { units: { description: 'Units', enum: ['metric', 'imperial'] } } }); // ['Units', 'metric', 'imperial']
 */
export function parameterTexts(schema: unknown, depth = PARAMETER_DEPTH): string[] {
  return schemaParts(schema, depth).texts;
}

function schemaParts(
  schema: unknown,
  depth: number,
  into: { names: string[]; texts: string[] } = { names: [], texts: [] },
): { names: string[]; texts: string[] } {
  if (!isPlainObject(schema) || depth === 0) return into;
  const { properties } = schema;
  if (isPlainObject(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      into.names.push(name);
      if (isPlainObject(property)) {
        for (const key of ['title', 'description'])
          if (typeof property[key] === 'string') into.texts.push(property[key] as string);
        if (Array.isArray(property.enum))
          for (const value of property.enum) if (typeof value === 'string') into.texts.push(value);
      }
      schemaParts(property, depth - 1, into);
    }
  }
  const nested = [schema.items, schema.additionalProperties];
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(schema[key])) nested.push(...(schema[key] as unknown[]));
  for (const sub of nested) schemaParts(sub, depth - 1, into);
  return into;
}

/** One indexed tool: how often each term occurs in each field, and each field's length. */
interface Entry {
  name: string;
  counts: Map<string, Float64Array>;
  lengths: Float64Array;
}

/**
 * The tools of a catalog, searchable by the words of their names, titles, descriptions and
 * parameters.
 *
 * @example
 * const index = new ToolSearch([
 *   { name: 'read_text_file', description: 'Read a file as text', inputSchema: { properties: { path: {} } } },
 *   { name: 'create_entities', description: 'Create entities in the knowledge graph' },
 * ]);
 * index.search('read files'); // ['read_text_file']
 * index.closeNames('read_txt_file'); // ['read_text_file']
 */
export class ToolSearch {
  private readonly entries: Entry[] = [];
  /** The tools each term occurs in (in any field), by their index in `entries`. */
  private readonly postings = new Map<string, number[]>();
  private readonly averageLengths = new Float64Array(FIELDS.length);
  private readonly names: string[];

  constructor(
    tools: readonly SearchableTool[],
    private readonly ranking: Ranking = DEFAULT_RANKING,
  ) {
    // A name listed twice (a misbehaving upstream) is indexed once, as the later definition.
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    this.names = [...byName.keys()];
    for (const tool of byName.values()) {
      const entry = this.entry(tool);
      for (const term of entry.counts.keys()) {
        const tools = this.postings.get(term);
        if (tools === undefined) this.postings.set(term, [this.entries.length]);
        else tools.push(this.entries.length);
      }
      this.entries.push(entry);
      entry.lengths.forEach((length, field) => {
        this.averageLengths[field]! += length / byName.size;
      });
    }
  }

  /**
   * The names of the tools that match `query`, best first, at most `limit`. A query that is a
   * tool's exact name (any case) puts that tool first.
   */
  search(query: string, limit = Number.POSITIVE_INFINITY): string[] {
    const scores = new Float64Array(this.entries.length);
    for (const word of new Set(this.terms(query))) {
      const best = new Float64Array(this.entries.length);
      for (const [term, factor] of this.expand(word)) {
        const tools = this.postings.get(term)!;
        const idf = Math.log(1 + (this.entries.length - tools.length + 0.5) / (tools.length + 0.5));
        for (const i of tools) {
          const score = factor * idf * this.saturated(this.entries[i]!, term);
          if (score > best[i]!) best[i] = score;
        }
      }
      best.forEach((score, i) => {
        scores[i]! += score;
      });
    }
    const ranked = this.entries
      .map((entry, i) => ({ name: entry.name, score: scores[i]!, i }))
      .filter(({ score }) => score > 0)
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map(({ name }) => name);
    const exact = this.names.find((name) => name.toLowerCase() === query.trim().toLowerCase());
    const ordered = exact === undefined ? ranked : [exact, ...ranked.filter((n) => n !== exact)];
    return ordered.slice(0, limit);
  }

  /**
   * The indexed names closest to `name`, a name that is not indexed: names within a few edits
   * of it, or whose last parts are (`read_txt_file` is close to `files__read_text_file`), the
   * closest first, then the tools its words find.
   */
  closeNames(name: string, limit = 3): string[] {
    const wanted = name.toLowerCase();
    const near = closest(wanted, this.names, {
      distance: (lowered, candidate) => nameDistance(lowered, candidate.toLowerCase()),
      within: Math.max(2, Math.floor(wanted.length / 4)),
    });
    const close = new Set(near);
    for (const candidate of this.search(name)) close.add(candidate);
    return [...close].slice(0, limit);
  }

  /** The terms of a text, as indexed: words, stop words out, stemmed. */
  private terms(text: string): string[] {
    const terms: string[] = [];
    for (const word of toolWords(text)) {
      const stemmed = stem(word);
      if (stemmed !== null) terms.push(this.ranking.suffixes ? root(stemmed) : stemmed);
    }
    return terms;
  }

  private entry(tool: SearchableTool): Entry {
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    const { server, name } = splitName(tool.name);
    const parts = schemaParts(tool.inputSchema, PARAMETER_DEPTH);
    const fields: Record<Field, string> = {
      name,
      server,
      title: text(tool.title),
      description: text(tool.description),
      parameters: parts.names.join(' '),
      parameterText: parts.texts.join(' '),
    };
    const counts = new Map<string, Float64Array>();
    const lengths = new Float64Array(FIELDS.length);
    FIELDS.forEach((field, f) => {
      const terms = this.terms(fields[field]);
      lengths[f] = terms.length;
      for (const term of terms) {
        let row = counts.get(term);
        if (row === undefined) {
          row = new Float64Array(FIELDS.length);
          counts.set(term, row);
        }
        row[f]! += 1;
      }
    });
    return { name: tool.name, counts, lengths };
  }

  /** The indexed terms a query word stands for, each with what a match of it counts. */
  private expand(word: string): Map<string, number> {
    const { prefix, fuzzy } = this.ranking;
    const terms = new Map<string, number>();
    if (this.postings.has(word)) terms.set(word, 1);
    if (this.ranking.synonym > 0)
      for (const synonym of this.synonyms().get(word) ?? [])
        if (synonym !== word && this.postings.has(synonym))
          terms.set(synonym, this.ranking.synonym);
    for (const term of this.postings.keys()) {
      if (terms.has(term)) continue;
      // "dir" finds "directory"; "directroy" finds it too. Short words match only as they are.
      if (word.length >= 3 && term.startsWith(word)) terms.set(term, prefix);
      else if (
        word.length >= 5 &&
        Math.abs(term.length - word.length) <= 1 &&
        editDistance(word, term, { swaps: true }) === 1
      )
        terms.set(term, fuzzy);
    }
    return terms;
  }

  private synonymTable: Map<string, string[]> | undefined;

  /** Each term of SYNONYMS with the terms it stands beside, as the index processes words. */
  private synonyms(): Map<string, string[]> {
    if (this.synonymTable !== undefined) return this.synonymTable;
    const table = new Map<string, string[]>();
    for (const group of SYNONYMS) {
      const terms = this.terms(group);
      for (const term of terms) table.set(term, [...(table.get(term) ?? []), ...terms]);
    }
    this.synonymTable = table;
    return table;
  }

  /** BM25F: the field-weighted, length-normalised count of `term` in a tool, saturated. */
  private saturated(entry: Entry, term: string): number {
    const counts = entry.counts.get(term)!;
    const { weights, b, k1 } = this.ranking;
    let weighted = 0;
    FIELDS.forEach((field, f) => {
      const count = counts[f]!;
      if (count === 0) return;
      const average = this.averageLengths[f]! || 1;
      const norm = 1 - b[field] + (b[field] * entry.lengths[f]!) / average;
      weighted += (weights[field] * count) / norm;
    });
    return (weighted * (k1 + 1)) / (weighted + k1);
  }
}

/**
 * A tool name's server prefix and its own name: a gateway's `memory__create_entities` is the
 * tool `create_entities` of the server `memory`; a name without `__` has no prefix.
 */
function splitName(name: string): { server: string; name: string } {
  const at = name.indexOf('__');
  return at > 0 && at + 2 < name.length
    ? { server: name.slice(0, at), name: name.slice(at + 2) }
    : { server: '', name };
}

/**
 * How far `wanted` is from a name: the fewest edits to the whole name or to one of its endings
 * that start after a separator (a gateway's `server__tool` ends with `tool`).
 */
function nameDistance(wanted: string, name: string): number {
  let best = editDistance(wanted, name);
  for (let i = 1; i < name.length && best > 0; i++) {
    if (/[^\p{L}\p{N}]/u.test(name.charAt(i - 1)) && /[\p{L}\p{N}]/u.test(name.charAt(i)))
      best = Math.min(best, editDistance(wanted, name.slice(i)));
  }
  return best;
}
