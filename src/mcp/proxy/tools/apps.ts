// MCP Apps (the `ui` extension): which tools belong to a UI, and which are for the widget alone.
// Their results' `structuredContent` and their `outputSchema` are what the widget reads, so no
// mode removes them, and lazy mode lists them as they are.

import { isPlainObject } from '../../../codec/objects.js';

/**
 * Whether a tool is part of an MCP Apps UI: its `_meta` has a `ui` object (whatever its
 * `visibility`, with or without `resourceUri`: an app-only tool such as a widget's poller has
 * none), the older flat key `ui/resourceUri`, or the OpenAI Apps SDK's `openai/outputTemplate`.
 * A widget renders from such a tool's `structuredContent`, so that and its `outputSchema` stay.
 *
 * @example
 * declaresUi({ ui: { resourceUri: 'ui://weather/view.html' } }); // true
 * declaresUi({ ui: { visibility: ['app'] } }); // true
 * declaresUi({ 'ui/resourceUri': 'ui://weather/view.html' }); // true
 * declaresUi(undefined); // false
 */
export function declaresUi(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  return (
    isPlainObject(meta.ui) ||
    typeof meta['ui/resourceUri'] === 'string' ||
    typeof meta['openai/outputTemplate'] === 'string'
  );
}

/**
 * Whether an MCP Apps tool is for its widget only (`_meta.ui.visibility` without `"model"`): the
 * host keeps it from the model but lets the widget call it.
 *
 * @example
 * appOnly({ ui: { visibility: ['app'] } }); // true
 * appOnly({ ui: { resourceUri: 'ui://weather/view.html' } }); // false
 */
export function appOnly(meta: unknown): boolean {
  if (!isPlainObject(meta) || !isPlainObject(meta.ui)) return false;
  const { visibility } = meta.ui;
  return Array.isArray(visibility) && !visibility.includes('model');
}
