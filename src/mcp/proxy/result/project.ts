// Stage 3, project: the data cut down to the fields the model (or the tool's settings) asked for,
// with a note when a field does not exist. `structuredContent` is never projected.

import { projectFields } from '../../fields.js';
import type { PayloadView } from './view.js';

/**
 * `view` with its data projected to `plan.fields`, and the projection's note, if any, added.
 * A projected text ships as rewritten even where JSON is the smallest encoding.
 *
 * @example
 * project(view).data?.value; // [{ id: 1 }, { id: 2 }] for plan.fields 'id'
 */
export function project(view: PayloadView): PayloadView {
  const { data, plan } = view;
  const spec = plan?.fields;
  if (data === undefined || spec === undefined) return view;
  const { value, note } = projectFields(data.value, spec, { source: 'toonwire proxy' });
  return {
    ...view,
    data: { ...data, value, projected: true },
    notes: note === undefined ? view.notes : [...view.notes, note],
  };
}
