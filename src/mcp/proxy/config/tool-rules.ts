// Which tools' results the proxy leaves alone without reading them: `"compact": false` in the
// config, `--exclude-tools`, tools outside `--tools`, and tools the content policy says return file,
// resource or document contents (`--include-tools` and `--tools` override the policy).

import type { ResolvedToolSettings } from './config.js';
import { contentToolReason } from './content-policy.js';
import { unqualify } from './names.js';

/** What a tool is, as far as these rules and the result pipeline care; learned from tools/list. */
export interface ToolFacts {
  name: string;
  inputSchema?: unknown;
  /** The tool's `outputSchema`; `undefined` when it declares none (or is not `listed`). */
  outputSchema?: unknown;
  /** Whether tools/list showed the tool (else the proxy knows only its name). */
  listed?: boolean;
  /**
   * Whether the tool declares an MCP Apps UI resource: its host renders a widget from
   * `structuredContent`, so that is never removed.
   */
  hasUi?: boolean;
}

/** Which tools the proxy compacts (the CLI's `--tools`, `--exclude-tools`, `--include-tools`). */
export interface ToolRuleOptions {
  /**
   * Only these tools' results are compacted (default: every tool's). Naming a tool here also
   * overrides the content policy for it: the user has said its results are data.
   */
  tools?: readonly string[];
  /** These tools' results are never rewritten (wins over `tools` and `includeTools`). */
  excludeTools?: readonly string[];
  /** These tools' results are compacted even when the content policy would leave them alone. */
  includeTools?: readonly string[];
  /**
   * Leave alone the results of tools that return file, resource or document contents (default
   * `true`; see `contentToolReason` for how they are recognised).
   */
  contentPolicy?: boolean;
  /**
   * In a gateway, what joins a server's name to its tools' names: the content policy then judges
   * a tool by its own name (`read_text_file`, not `files__read_text_file`).
   */
  separator?: string;
}

/**
 * The rules of {@link ToolRuleOptions}, checked once per call.
 *
 * @example
 * const rules = new ToolRules({ excludeTools: ['secret'] });
 * rules.leaveAlone({ name: 'read_text_file' }, settings); // 'content'
 */
export class ToolRules {
  private readonly only: ReadonlySet<string> | undefined;
  private readonly excluded: ReadonlySet<string>;
  private readonly included: ReadonlySet<string>;
  private readonly contentPolicy: boolean;
  private readonly separator: string | undefined;
  /**
   * The content policy's verdict per tool, read once: the catalog keeps one `ToolFacts` per tool
   * until the next tools/list, and the verdict of a name and schema never changes.
   */
  private readonly contentVerdicts = new WeakMap<ToolFacts, boolean>();

  constructor(options: ToolRuleOptions = {}) {
    this.separator = options.separator;
    this.only = options.tools === undefined ? undefined : new Set(options.tools);
    this.excluded = new Set(options.excludeTools ?? []);
    this.included = new Set(options.includeTools ?? []);
    this.contentPolicy = options.contentPolicy ?? true;
  }

  /**
   * Why results of `tool` are left alone, or `undefined` when they are read: `'config'` (its
   * settings say `"compact": false`), `'excluded'` (`excludeTools` first, then not in `tools`),
   * then `'content'` (the content policy, unless `tools` or `includeTools` name the tool).
   */
  leaveAlone(
    tool: ToolFacts | undefined,
    settings: Pick<ResolvedToolSettings, 'compact'>,
  ): 'config' | 'excluded' | 'content' | undefined {
    if (!settings.compact) return 'config';
    const name = tool?.name;
    if (name !== undefined && this.excluded.has(name)) return 'excluded';
    if (this.only !== undefined && (name === undefined || !this.only.has(name))) return 'excluded';
    if (name !== undefined && (this.included.has(name) || this.only?.has(name))) return undefined;
    if (this.contentPolicy && tool !== undefined && this.returnsContents(tool)) return 'content';
    return undefined;
  }

  private returnsContents(tool: ToolFacts): boolean {
    let verdict = this.contentVerdicts.get(tool);
    if (verdict === undefined) {
      verdict = contentToolReason(this.own(tool)) !== undefined;
      this.contentVerdicts.set(tool, verdict);
    }
    return verdict;
  }

  /**
   * Whether the user named `tool` in `tools` or `includeTools`: they have said its results are
   * data, so a JSON text is read as data even where the result shows it to be a string value (a
   * Python `-> str` tool returning `json.dumps(rows)`).
   *
   * @example
   * new ToolRules({ includeTools: ['query'] }).named({ name: 'query' }); // true
   */
  named(tool: ToolFacts | undefined): boolean {
    const name = tool?.name;
    return name !== undefined && (this.included.has(name) || this.only?.has(name) === true);
  }

  /** The tool as its server names it (a gateway prefixes the server's name). */
  private own(tool: ToolFacts): ToolFacts {
    const parts = this.separator === undefined ? undefined : unqualify(tool.name, this.separator);
    return parts === undefined ? tool : { ...tool, name: parts.name };
  }
}
