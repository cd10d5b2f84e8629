// Lexical search over tool definitions, for `toonwire_find_tools`: BM25 (MiniSearch's BM25+)
// over the words of each tool's name, title, description and parameter names, and the names
// closest to a misspelled one, for `toonwire_call_tool`'s "unknown tool" answer.

import { createRequire } from 'node:module';
import type MiniSearch from 'minisearch';
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
  'a an and are as at be by can for from has have if in into is it its of on or that the this to use used uses when which will with you your'.split(
    ' ',
  ),
);

/** How deep parameter names are collected from nested object and array schemas. */
const PARAMETER_DEPTH = 4;

/** Field weights: a word of the name says more than a word of the description. */
const BOOST = { name: 3, title: 2, parameters: 1.5, description: 1 };

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
 * The property names of a JSON Schema and of the object schemas nested in it (array items,
 * `anyOf`/`oneOf`/`allOf` branches), down to a few levels.
 *
 * @example
 * parameterNames({ type: 'object', properties: { path: { type: 'string' }, edits: { type: 'array', items: { properties: { oldText: {} } } } } }); // ['path', 'edits', 'oldText']
 */
export function parameterNames(schema: unknown, depth = PARAMETER_DEPTH): string[] {
  if (!isPlainObject(schema) || depth === 0) return [];
  const names: string[] = [];
  const { properties } = schema;
  if (isPlainObject(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      names.push(name);
      names.push(...parameterNames(property, depth - 1));
    }
  }
  const nested = [schema.items, schema.additionalProperties];
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(schema[key])) nested.push(...(schema[key] as unknown[]));
  for (const sub of nested) names.push(...parameterNames(sub, depth - 1));
  return names;
}

/**
 * The tools of a catalog, searchable by the words of their names, titles, descriptions and
 * parameter names.
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
  // Loaded on first use, so that a proxy without lazy tools never loads it.
  private readonly index = new (loadMiniSearch())<SearchableTool>({
    idField: 'name',
    fields: ['name', 'title', 'description', 'parameters'],
    tokenize: toolWords,
    processTerm: stem,
    extractField: (tool, field) => {
      if (field === 'parameters') return parameterNames(tool.inputSchema).join(' ');
      const value = tool[field as keyof SearchableTool];
      return typeof value === 'string' ? value : '';
    },
    searchOptions: {
      boost: BOOST,
      combineWith: 'OR',
      // "dir" finds "directory"; "directroy" finds it too. Short words match only as they are.
      prefix: (term) => term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
    },
  });
  private readonly names: string[];

  constructor(tools: readonly SearchableTool[]) {
    // A name listed twice (a misbehaving upstream) is indexed once, as the later definition.
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    this.index.addAll([...byName.values()]);
    this.names = [...byName.keys()];
  }

  /**
   * The names of the tools that match `query`, best first, at most `limit`. A query that is a
   * tool's exact name (any case) puts that tool first.
   */
  search(query: string, limit = Number.POSITIVE_INFINITY): string[] {
    const ranked = this.index.search(query).map((hit) => String(hit.id));
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
}

let miniSearch: typeof MiniSearch | undefined;

function loadMiniSearch(): typeof MiniSearch {
  miniSearch ??= createRequire(import.meta.url)('minisearch') as typeof MiniSearch;
  return miniSearch;
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
