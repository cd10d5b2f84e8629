// The parts of toonwire_find_tools' ranking (issue 29 item 4) one at a time, on small catalogs;
// tool-search-quality.test.ts measures the whole on 100 realistic needs.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_RANKING,
  parameterTexts,
  root,
  stem,
  ToolSearch,
} from '../../src/mcp/proxy/tools/search.js';

const tool = (name: string, description = '', properties: Record<string, unknown> = {}) => ({
  name,
  description,
  inputSchema: { type: 'object', properties },
});

describe('tool search ranking', () => {
  it('takes verb and noun endings off after plurals, keeping three letters', () => {
    const roots = (words: string[]) => words.map((word) => root(stem(word)!));
    assert.deepEqual(roots(['staged', 'staging', 'stage', 'stages']), [
      'stag',
      'stag',
      'stag',
      'stag',
    ]);
    assert.deepEqual(roots(['running', 'stopped', 'logging']), ['run', 'stop', 'log']);
    assert.deepEqual(roots(['need', 'red', 'user']), ['need', 'red', 'user']);
  });

  it('reads parameter descriptions, titles and enum strings, nested ones too', () => {
    assert.deepEqual(
      parameterTexts({
        properties: {
          city: { title: 'City', description: 'Where', enum: ['Paris', 1] },
          edits: { type: 'array', items: { properties: { oldText: { description: 'Old' } } } },
        },
      }),
      ['City', 'Where', 'Paris', 'Old'],
    );
  });

  it('finds a tool by a word of its parameters, less than by a word of its name', () => {
    const index = new ToolSearch([
      tool('move_file', 'Move a file', { destination: { description: 'Target city' } }),
      tool('get_city', 'Facts about a place'),
    ]);
    assert.deepEqual(index.search('city'), ['get_city', 'move_file']);
    assert.deepEqual(index.search('destination'), ['move_file']);
  });

  it('weighs a gateway server name less than the tool name, and splits camelCase and kebab-case', () => {
    const index = new ToolSearch([
      tool('memory__read_graph', 'Read the entire knowledge graph'),
      tool('files__memory-report', 'Report'),
      tool('files__getMemoryUsage', 'Usage'),
    ]);
    const found = index.search('memory');
    assert.deepEqual(found.slice(0, 2).sort(), ['files__getMemoryUsage', 'files__memory-report']);
    assert.equal(found[2], 'memory__read_graph');
    assert.deepEqual(index.search('graph memory')[0], 'memory__read_graph');
  });

  it('counts a general synonym, less than the word itself', () => {
    const index = new ToolSearch([
      tool('list_directory', 'List a directory'),
      tool('list_folder', 'List a folder'),
    ]);
    assert.deepEqual(index.search('folder'), ['list_folder', 'list_directory']);
    assert.deepEqual(index.search('directory'), ['list_directory', 'list_folder']);
    const plain = new ToolSearch([tool('create_directory', 'Create a new directory')], {
      ...DEFAULT_RANKING,
      synonym: 0,
    });
    assert.deepEqual(plain.search('folder'), []);
    assert.deepEqual(new ToolSearch([tool('create_directory', 'Create')]).search('folder'), [
      'create_directory',
    ]);
  });

  it('drops common English words, so "was" finds no was_cancelled', () => {
    const index = new ToolSearch([tool('was_cancelled', 'Whether the wait was cancelled')]);
    assert.deepEqual(index.search('when was it'), []);
    assert.deepEqual(index.search('cancelled'), ['was_cancelled']);
  });

  it('ranks ties in catalog order, and an exact name first', () => {
    const index = new ToolSearch([tool('two_file', 'File'), tool('one_file', 'File')]);
    assert.deepEqual(index.search('file'), ['two_file', 'one_file']);
    assert.deepEqual(index.search('ONE_FILE'), ['one_file', 'two_file']);
  });
});
