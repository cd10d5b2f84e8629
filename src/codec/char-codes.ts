// Character codes the codec compares against, in one place: the lexer, the line scanner, the
// header parser and the structural decoder all read text by `charCodeAt`, and one spelling of
// each code keeps them from drifting apart.

export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const HASH = 0x23;
export const PLUS = 0x2b;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
export const DOT = 0x2e;
export const ZERO = 0x30;
export const NINE = 0x39;
export const COLON = 0x3a;
export const BRACKET_OPEN = 0x5b;
export const BACKSLASH = 0x5c;
export const BRACKET_CLOSE = 0x5d;
export const UNDERSCORE = 0x5f;
export const BRACE_OPEN = 0x7b;
export const PIPE = 0x7c;
export const BRACE_CLOSE = 0x7d;
export const BOM = 0xfeff;
