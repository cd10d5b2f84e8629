// The compact engine: dot-flatten, field projection, size measures and the adaptive picker.
export {
  type Candidate,
  type CandidateName,
  CANDIDATE_NAMES,
  DEFAULT_CANDIDATES,
} from './candidates.js';
export { DEFAULT_FLATTEN_MAX_DEPTH, type FlattenOptions, flatten, unflatten } from './flatten.js';
export {
  type CandidateMeasurement,
  type PickOptions,
  type PickResult,
  measureCandidates,
  parseCompact,
  pick,
  stringifyCompact,
} from './pick.js';
export { DEFAULT_ENVELOPE, type FieldSpec, type ProjectOptions, omit, project } from './project.js';
export {
  DEFAULT_TOKENIZER,
  type SizeMeasure,
  type TokenizerName,
  byteLength,
  loadTokenizer,
} from './size.js';
