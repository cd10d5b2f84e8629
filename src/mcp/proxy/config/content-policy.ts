// Which tools' results the proxy must never rewrite: tools that hand the model the contents of a
// file, a resource or a document. What such a tool returns is not a JSON encoding of structured
// data even when it parses as JSON (a package.json, a JSON fixture), and the model may quote it
// back (an edit's `oldText`) or write it to disk, so it must arrive exactly as the server sent it.

/**
 * Tool names known to return file, resource or document contents, from popular servers:
 * server-filesystem, GitHub, GitLab, git, fetch, and the generic names many servers copy.
 */
export const CONTENT_TOOL_NAMES: readonly string[] = [
  // @modelcontextprotocol/server-filesystem
  'read_file',
  'read_text_file',
  'read_media_file',
  'read_multiple_files',
  // GitHub's and GitLab's MCP servers
  'get_file_contents',
  'get_file_content',
  'get_raw_file',
  // mcp-server-git
  'git_show',
  'git_diff',
  'git_diff_staged',
  'git_diff_unstaged',
  // mcp-server-fetch and look-alikes
  'fetch',
  'fetch_url',
  'read_url',
  'read_resource',
  'get_resource',
];

/** Verbs of reading, as words of a tool name (`read_text_file`, `getFileContents`). */
const READ_VERBS = new Set([
  'read',
  'get',
  'cat',
  'show',
  'open',
  'view',
  'fetch',
  'download',
  'load',
  'retrieve',
  'export',
]);

/** Nouns that name contents whose exact text matters. */
const CONTENT_NOUNS = new Set([
  'file',
  'files',
  'content',
  'contents',
  'document',
  'documents',
  'doc',
  'docs',
  'page',
  'pages',
  'resource',
  'resources',
  'blob',
  'blobs',
  'source',
  'raw',
  'attachment',
  'attachments',
]);

/** Input properties that point at a file or a document. */
const LOCATION_ARGUMENTS = new Set([
  'path',
  'paths',
  'file',
  'files',
  'filepath',
  'file_path',
  'filename',
  'uri',
  'uris',
  'url',
  'urls',
  'href',
]);

/** What the proxy knows of a tool from the tools/list it forwarded. */
export interface ToolDescription {
  name: string;
  /** The tool's `inputSchema`, if the proxy saw it. */
  inputSchema?: unknown;
}

/**
 * Why a tool's results are forwarded untouched by the content policy: `'name'` (on
 * {@link CONTENT_TOOL_NAMES}), `'name-words'` (a read verb and a content noun, `get_page_source`),
 * `'location-argument'` (a read verb and a `path`/`uri`/`url` argument, `read_note(path)`), or
 * `undefined` when nothing says it returns contents.
 *
 * The rule errs towards leaving text alone: a tool it wrongly flags loses only its saving, while
 * one it misses could have a file rewritten. It cannot see what a tool does, only its name and
 * inputs: a file reader called `lookup(id)` is not recognised (name it in `--exclude-tools`),
 * and a data tool called `get_page(id)` is passed through (name it in `--tools` to compact it).
 *
 * @example
 * contentToolReason({ name: 'read_text_file' }); // 'name'
 * contentToolReason({ name: 'getDocumentBody' }); // 'name-words'
 * contentToolReason({ name: 'open', inputSchema: { properties: { uri: {} } } }); // 'location-argument'
 * contentToolReason({ name: 'directory_tree', inputSchema: { properties: { path: {} } } }); // undefined
 */
export function contentToolReason(
  tool: ToolDescription,
): 'name' | 'name-words' | 'location-argument' | undefined {
  if (CONTENT_TOOL_NAMES.includes(tool.name)) return 'name';
  const words = nameWords(tool.name);
  if (!words.some((word) => READ_VERBS.has(word))) return undefined;
  if (words.some((word) => CONTENT_NOUNS.has(word))) return 'name-words';
  return argumentNames(tool.inputSchema).some((name) => LOCATION_ARGUMENTS.has(name))
    ? 'location-argument'
    : undefined;
}

/** `'getFileContents'`, `'get-file_contents'` → `['get', 'file', 'contents']`. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

function argumentNames(inputSchema: unknown): string[] {
  if (typeof inputSchema !== 'object' || inputSchema === null) return [];
  const properties = (inputSchema as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.keys(properties).map((name) => name.toLowerCase());
}
