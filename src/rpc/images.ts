// Images for a prompt: pi takes PNG, JPEG, GIF and WebP as base64 with their media type. The
// type is read from the file's first bytes, not its name. No node imports.
import type { PromptImage } from '../api/types.ts';

/** About what the API accepts per image (base64 grows it by a third). */
export const MAX_IMAGE_BYTES = 12 * 1024 * 1024;

/** The image type its first bytes say, or null for anything else. */
export function imageMimeType(bytes: Uint8Array): PromptImage['mimeType'] | null {
  const at = (offset: number, ...expected: number[]) => expected.every((b, i) => bytes[offset + i] === b);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return null;
}
