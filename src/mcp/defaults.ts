// Defaults of the MCP layer, in a module with no imports so that the CLI can show them in its
// help without loading the SDK or the proxy.

/** The `_meta` key under which results say which encoding the picker shipped. */
export const DEFAULT_META_KEY = 'toonwire/encodingStrategy';

/** How long the proxy waits for an upstream answer before it gives up (5 minutes). */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** How long the proxy waits for an upstream to start and answer `initialize` (1 minute). */
export const DEFAULT_INIT_TIMEOUT_MS = 60_000;

/**
 * How long `--listen` keeps a session with no open request (an open GET stream keeps it while its
 * connection lives) before ending it and stopping its upstream (2 minutes): clients that go away
 * without an HTTP DELETE leave such sessions, a process each.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/**
 * Results with more text than this (UTF-8 bytes) are forwarded as they came, not read: reading and
 * compacting takes about 16 times a result's size in memory (16 MiB).
 */
export const DEFAULT_MAX_COMPACT_BYTES = 16 * 1024 * 1024;

/** How many sessions `--listen` keeps open at once. */
export const DEFAULT_MAX_SESSIONS = 32;

/** How long a `--max-tokens` page cursor stays valid after its last use (10 minutes). */
export const DEFAULT_PAGE_TTL_MS = 600_000;

/** How much paged result data the proxy keeps for `toonwire_more` (64 MiB of JSON). */
export const DEFAULT_PAGE_CACHE_BYTES = 64 * 1024 * 1024;
