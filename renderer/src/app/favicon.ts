// The page's icon with the waiting-edit count drawn on it (a canvas image as a data: URL,
// which the renderer's CSP allows under img-src). Without a count the shipped icon returns.
import { badgeText } from './attention.ts';

const SIZE = 64;

export class FaviconBadge {
  readonly #link: HTMLLinkElement | null;
  readonly #original: string;
  #base: Promise<HTMLImageElement | null> | null = null;
  #wanted: string | null = null;

  constructor(doc: Document = document) {
    this.#link = doc.querySelector<HTMLLinkElement>('link[rel~="icon"]');
    this.#original = this.#link?.getAttribute('href') ?? '';
  }

  /** Shows `pending` on the icon; the latest call wins when images load out of order. */
  async show(pending: number): Promise<void> {
    const link = this.#link;
    if (link === null) return;
    const text = badgeText(pending);
    this.#wanted = text;
    if (text === null) {
      link.setAttribute('href', this.#original);
      return;
    }
    const base = await this.#baseImage();
    await idle();
    if (this.#wanted !== text) return;
    link.setAttribute('href', drawBadge(base, text));
  }

  #baseImage(): Promise<HTMLImageElement | null> {
    this.#base ??= new Promise((resolve) => {
      const image = new Image();
      image.onload = () => resolve(image);
      // A badge on a blank square is still a count.
      image.onerror = () => resolve(null);
      image.src = this.#original;
    });
    return this.#base;
  }
}

/**
 * Resolves once the page is idle (at most a second on): the canvas text and PNG encoding take
 * 10–30 ms on a cold page, time the first diff view would otherwise wait for.
 */
function idle(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(() => resolve(), { timeout: 1000 });
    else setTimeout(resolve, 0);
  });
}

function drawBadge(base: HTMLImageElement | null, text: string): string {
  const canvas = document.createElement('canvas');
  canvas.width = SIZE;
  canvas.height = SIZE;
  const ctx = canvas.getContext('2d');
  if (ctx === null) return '';
  if (base !== null) ctx.drawImage(base, 0, 0, SIZE, SIZE);
  const radius = text.length > 1 ? 21 : 18;
  const cx = SIZE - radius;
  const cy = SIZE - radius;
  ctx.beginPath();
  ctx.arc(cx, cy, radius, 0, Math.PI * 2);
  ctx.fillStyle = '#d92d20';
  ctx.fill();
  ctx.lineWidth = 3;
  ctx.strokeStyle = '#ffffff';
  ctx.stroke();
  ctx.fillStyle = '#ffffff';
  ctx.font = `bold ${text.length > 1 ? 22 : 28}px system-ui, sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, cx, cy + 1);
  return canvas.toDataURL('image/png');
}
