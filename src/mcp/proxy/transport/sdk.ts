// The MCP SDK is a peer dependency that only the HTTP transports need: the stdio proxy runs
// without it. Loading it goes through here so that a missing SDK says what to install.

/** Loads an SDK module, turning "module not found" into an error that says what to run. */
export async function loadSdkModule<T>(load: () => Promise<T>, purpose: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (
      code === 'ERR_MODULE_NOT_FOUND' &&
      String((error as Error).message).includes('@modelcontextprotocol/sdk')
    ) {
      throw new Error(missingPeer('the official MCP SDK', '@modelcontextprotocol/sdk', purpose), {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Loads `name`, an optional peer dependency, turning "module not found" into an error that says
 * what needs it and what to run.
 *
 * @example
 * const jose = await loadPeer(() => import('jose'), 'jose', 'Checking OAuth access tokens (--auth-issuer)');
 */
export async function loadPeer<T>(
  load: () => Promise<T>,
  name: string,
  purpose: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      throw new Error(missingPeer(name, name, purpose), { cause: error });
    throw error;
  }
}

/**
 * What to say when an optional peer is missing. Through `npx --package=<toonwire>` the packages
 * of the project it runs in are not beside toonwire, whatever the project has installed, so
 * the message names npx's way too.
 */
function missingPeer(what: string, name: string, purpose: string): string {
  return `${purpose} needs ${what}, which is not installed beside toonwire; run \`npm install ${name}\` in the project that has toonwire, or under npx add \`--package=${name}\` (npx installs only the packages it is given)`;
}
