// What the preload puts on `window.patchbay`: the HubApi and nothing more.
import type { HubApi } from '../../src/api/types.ts';

export type PatchbayBridge = Pick<HubApi, 'call' | 'subscribe'>;
