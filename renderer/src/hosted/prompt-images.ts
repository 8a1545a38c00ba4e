// Images pasted or dropped into the prompt box: read, typed by their first bytes (as the CLI
// does), and kept as base64 for pi with a data: URL for the thumbnail (the window loads
// nothing but its own files and data: images).
import type { PromptImage } from '../../../src/api/types.ts';
import { MAX_IMAGE_BYTES, imageMimeType } from '../../../src/rpc/images.ts';

export interface DraftImage extends PromptImage {
  name: string;
  /** For the thumbnail. */
  url: string;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/** The file as a prompt image, or why it cannot be one. */
export async function readImage(file: File): Promise<DraftImage> {
  if (file.size > MAX_IMAGE_BYTES) throw new Error(`${file.name || 'the image'} is larger than ${MAX_IMAGE_BYTES / 1024 / 1024} MiB`);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const mimeType = imageMimeType(bytes);
  if (mimeType === null) throw new Error(`${file.name || 'that file'} is not a PNG, JPEG, GIF or WebP image`);
  const data = base64(bytes);
  return { name: file.name || 'pasted image', mimeType, data, url: `data:${mimeType};base64,${data}` };
}
