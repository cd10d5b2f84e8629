// The compact engine: dot-flatten, field projection, size measures and the adaptive picker.
export {
  CANDIDATE_NAMES,
  type Candidate,
  type CandidateName,
  DEFAULT_CANDIDATES,
} from './candidates.js';
export {
  type BaselineEstimate,
  estimateTokenRange,
  estimateTokens,
  type TokenEstimate,
} from './estimate.js';
export { DEFAULT_FLATTEN_MAX_DEPTH, type FlattenOptions, flatten, unflatten } from './flatten.js';
export {
  type CandidateMeasurement,
  checkPickOptions,
  type GuardVerdict,
  guardVerdict,
  measureCandidates,
  measureText,
  type PickOptions,
  type PickResult,
  parseCompact,
  passesTokenGuard,
  pick,
  shippedEstimate,
  stringifyCompact,
  TOKEN_GUARD_CLEAR_BYTES,
  TOKEN_GUARD_MARGIN,
  TOKEN_GUARD_RULE,
  TOKEN_GUARD_SLACK,
  TOKEN_GUARD_SPLIT_MARGIN,
} from './pick.js';
export { DEFAULT_ENVELOPE, type FieldSpec, omit, type ProjectOptions, project } from './project.js';
export {
  byteLength,
  type CountTokens,
  DEFAULT_TOKENIZER,
  loadTokenizer,
  type SizeMeasure,
  type TokenizerName,
} from './size.js';
