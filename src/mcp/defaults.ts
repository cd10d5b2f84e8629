// Defaults of the MCP layer, in a module with no imports so that the CLI can show them in its
// help without loading the SDK or the proxy.

/** The `_meta` key under which results say which encoding the picker shipped. */
export const DEFAULT_META_KEY = 'toonwire/encodingStrategy';

/** How long the proxy waits for an upstream answer before it gives up (5 minutes). */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** How long `--listen` keeps a session with no open request before ending it (15 minutes). */
export const DEFAULT_IDLE_TIMEOUT_MS = 900_000;

/** How many sessions `--listen` keeps open at once. */
export const DEFAULT_MAX_SESSIONS = 32;

/** How long a `--max-tokens` page cursor stays valid after its last use (10 minutes). */
export const DEFAULT_PAGE_TTL_MS = 600_000;

/** How much paged result data the proxy keeps for `toonwire_more` (64 MiB of JSON). */
export const DEFAULT_PAGE_CACHE_BYTES = 64 * 1024 * 1024;
