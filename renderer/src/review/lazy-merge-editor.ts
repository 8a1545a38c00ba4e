// CodeMirror is most of the bundle and only the diff needs it: the other views load without it.
import { lazy } from 'react';

export const MergeEditor = lazy(() => import('./MergeEditor.tsx').then((m) => ({ default: m.MergeEditor })));
