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
