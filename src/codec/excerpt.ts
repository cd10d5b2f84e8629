// The one way a message quotes a piece of user text or data: whole when it is short, else its
// beginning and a marker saying it was cut. Every layer's messages use it, so cut text always
// looks the same and never makes a message unreadably long.

/**
 * `text` as it is when it has at most `max` characters, else its first characters and `marker`,
 * `max` characters in all (or `max` and the marker, when the marker is longer than `max`).
 *
 * @example
 * excerpt('a short line', 40); // 'a short line'
 * excerpt('x'.repeat(50), 10); // 'xxxxxxx...'
 * excerpt('x'.repeat(50), 10, '…'); // 'xxxxxxxxx…'
 */
export function excerpt(text: string, max: number, marker = '...'): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - marker.length))}${marker}`;
}

/**
 * `text` on one line (every run of white space one space, no leading or trailing space), cut
 * as {@link excerpt} cuts it: for quoting a multi-line body or message in a one-line log.
 *
 * @example
 * lineExcerpt('{\n  "error": "busy"\n}', 200); // '{ "error": "busy" }'
 */
export function lineExcerpt(text: string, max: number, marker = '...'): string {
  return excerpt(text.replace(/\s+/g, ' ').trim(), max, marker);
}
