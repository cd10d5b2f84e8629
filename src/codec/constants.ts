// Public constants of the codec, shaped like the reference implementation's so code written
// against `@toon-format/toon` keeps compiling after switching the import.

/**
 * The three delimiters TOON knows (spec §11), by name.
 *
 * @example
 * encode({ tags: ['a', 'b'] }, { delimiter: DELIMITERS.pipe }); // 'tags[2|]: a|b'
 */
export const DELIMITERS = { comma: ',', tab: '\t', pipe: '|' } as const;

/** A delimiter's name: `'comma'`, `'tab'` or `'pipe'`. */
export type DelimiterKey = keyof typeof DELIMITERS;

/** The document delimiter used when none is given: comma. */
export const DEFAULT_DELIMITER = DELIMITERS.comma;

/** Spaces per indentation level when none is given (spec §12). */
export const DEFAULT_INDENT_SIZE = 2;

/**
 * The deepest container nesting `decode` accepts by default (the root container is level 1).
 * `encode` refuses values nested deeper than this, so everything it writes decodes with the
 * default options (depth symmetry), and no walk gets near the JavaScript call stack limit.
 */
export const DEFAULT_MAX_DEPTH = 1000;
