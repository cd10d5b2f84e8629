// A folder of datasets: every .json file (an array of items, or an object holding one under
// "items" or "data") and every .jsonl file (one item per line) is a dataset named after the file.

import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';

/** One item of a dataset: a JSON object. */
export type Item = Record<string, unknown>;

/** What list-datasets says about a dataset. */
export interface DatasetInfo {
  name: string;
  format: 'json' | 'jsonl';
  itemCount: number;
  /** The top-level fields of the items, in first-seen order. */
  fields: string[];
  sizeBytes: number;
}

const FORMATS: Record<string, DatasetInfo['format']> = { '.json': 'json', '.jsonl': 'jsonl' };

/** Reads datasets from `folder`, fresh on every call, so edits show up without a restart. */
export class DatasetFolder {
  constructor(readonly folder: string) {}

  /** Every dataset in the folder, by name. */
  async list(): Promise<DatasetInfo[]> {
    const infos: DatasetInfo[] = [];
    for (const file of (await readdir(this.folder)).sort()) {
      const format = FORMATS[extname(file)];
      if (format === undefined) continue;
      const path = join(this.folder, file);
      const items = await this.readItems(path, format);
      const fields = [...new Set(items.flatMap((item) => Object.keys(item)))];
      infos.push({
        name: nameOf(file),
        format,
        itemCount: items.length,
        fields,
        sizeBytes: (await stat(path)).size,
      });
    }
    return infos;
  }

  /** The items of dataset `name`, or an error naming the datasets there are. */
  async items(name: string): Promise<Item[]> {
    const files = await readdir(this.folder);
    const file = files.find(
      (candidate) => FORMATS[extname(candidate)] !== undefined && nameOf(candidate) === name,
    );
    if (file === undefined) {
      const names = files
        .filter((candidate) => FORMATS[extname(candidate)] !== undefined)
        .map(nameOf);
      throw new Error(`No dataset named "${name}". Available: ${names.join(', ') || 'none'}.`);
    }
    return this.readItems(join(this.folder, file), FORMATS[extname(file)]!);
  }

  private async readItems(path: string, format: DatasetInfo['format']): Promise<Item[]> {
    const text = await readFile(path, 'utf8');
    if (format === 'jsonl') {
      return text
        .split('\n')
        .map((line, index) => ({ line: line.trim(), number: index + 1 }))
        .filter(({ line }) => line !== '')
        .map(({ line, number }) => {
          try {
            return asItem(JSON.parse(line));
          } catch (error) {
            throw new Error(`${path}:${number} is not a JSON object: ${(error as Error).message}`);
          }
        });
    }
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) return value.map(asItem);
    const envelope = value as { items?: unknown; data?: unknown };
    const list = Array.isArray(envelope.items)
      ? envelope.items
      : Array.isArray(envelope.data)
        ? envelope.data
        : [value];
    return list.map(asItem);
  }
}

function nameOf(file: string): string {
  return file.slice(0, -extname(file).length);
}

function asItem(value: unknown): Item {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Item)
    : { value };
}
