#!/usr/bin/env node
// Draws Patchbay's icons (two patch jacks joined by a cable) into PNGs, without image
// libraries: shapes are distance functions, anti-aliased by supersampling.
// Run `node resources/make-icons.mjs` after changing the drawing; the PNGs are committed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const OUT = fileURLToPath(new URL('.', import.meta.url));
const SAMPLES = 4;

// --- PNG encoding -----------------------------------------------------------------------
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
}

function png(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// --- Shapes in the unit square ----------------------------------------------------------
const ring = (cx, cy, r, w) => (x, y) => Math.abs(Math.hypot(x - cx, y - cy) - r) <= w / 2;
const disc = (cx, cy, r) => (x, y) => Math.hypot(x - cx, y - cy) <= r;

function segmentDistance(x, y, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (ax + t * dx), y - (ay + t * dy));
}

/** A cable: a cubic Bézier drawn as short segments. */
function cable(points, w) {
  const [p0, p1, p2, p3] = points;
  const at = (t) => {
    const u = 1 - t;
    return [0, 1].map((i) => u * u * u * p0[i] + 3 * u * u * t * p1[i] + 3 * u * t * t * p2[i] + t * t * t * p3[i]);
  };
  const pts = Array.from({ length: 25 }, (_, i) => at(i / 24));
  const segments = pts.slice(1).map((b, i) => [...pts[i], ...b]);
  return (x, y) => segments.some(([ax, ay, bx, by]) => segmentDistance(x, y, ax, ay, bx, by) <= w / 2);
}

function glyph(weight) {
  return [
    ring(0.27, 0.72, 0.15, weight),
    disc(0.27, 0.72, 0.05),
    ring(0.73, 0.28, 0.15, weight),
    disc(0.73, 0.28, 0.05),
    cable([[0.27, 0.57], [0.27, 0.3], [0.5, 0.62], [0.58, 0.28]], weight),
  ];
}

/** Layers are [shape, [r,g,b,a]] drawn in order; `cut` shapes clear what is under them. */
function render(size, layers) {
  const rgba = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let [r, g, b, a] = [0, 0, 0, 0];
      for (const { test, color, cut } of layers) {
        let hits = 0;
        for (let sy = 0; sy < SAMPLES; sy++) {
          for (let sx = 0; sx < SAMPLES; sx++) {
            if (test((px + (sx + 0.5) / SAMPLES) / size, (py + (sy + 0.5) / SAMPLES) / size)) hits++;
          }
        }
        const cover = hits / (SAMPLES * SAMPLES);
        if (cover === 0) continue;
        if (cut) {
          a *= 1 - cover;
          continue;
        }
        const alpha = cover * color[3];
        const outA = alpha + a * (1 - alpha);
        [r, g, b] = [0, 1, 2].map((i) => (color[i] * alpha + [r, g, b][i] * a * (1 - alpha)) / (outA || 1));
        a = outA;
      }
      rgba.set([r * 255, g * 255, b * 255, a * 255].map(Math.round), (py * size + px) * 4);
    }
  }
  return png(size, rgba);
}

const any = (shapes) => (x, y) => shapes.some((s) => s(x, y));
const BADGE = disc(0.8, 0.2, 0.19);
const BADGE_GAP = disc(0.8, 0.2, 0.27);

function trayLayers(color, pending, badgeColor) {
  const layers = [{ test: any(glyph(0.1)), color }];
  if (pending) layers.push({ test: BADGE_GAP, cut: true }, { test: BADGE, color: badgeColor });
  return layers;
}

const DARK_GLYPH = [0.12, 0.12, 0.12, 1];
const LIGHT_GLYPH = [0.94, 0.94, 0.94, 1];
const AMBER = [0.96, 0.62, 0.04, 1];
const BLACK = [0, 0, 0, 1];

const files = {};
for (const [scale, suffix] of [[16, ''], [32, '@2x']]) {
  for (const pending of [false, true]) {
    const p = pending ? '-pending' : '';
    // Light theme panel: dark glyph. Dark theme panel: light glyph.
    files[`tray/tray-light${p}${suffix}.png`] = render(scale, trayLayers(DARK_GLYPH, pending, AMBER));
    files[`tray/tray-dark${p}${suffix}.png`] = render(scale, trayLayers(LIGHT_GLYPH, pending, AMBER));
    // macOS template images: black plus alpha; the menu bar recolours them.
    files[`tray/tray${pending ? 'Pending' : ''}Template${suffix}.png`] = render(scale, trayLayers(BLACK, pending, BLACK));
  }
}

const roundedSquare = (x, y) => {
  const m = 0.06;
  const r = 0.2;
  const cx = Math.min(Math.max(x, m + r), 1 - m - r);
  const cy = Math.min(Math.max(y, m + r), 1 - m - r);
  return Math.hypot(x - cx, y - cy) <= r;
};
const inset = (shape) => (x, y) => shape((x - 0.18) / 0.64, (y - 0.18) / 0.64);
const appIcon = [
  { test: roundedSquare, color: [0.16, 0.35, 0.78, 1] },
  { test: inset(any(glyph(0.085))), color: [1, 1, 1, 1] },
];
files['icon.png'] = render(1024, appIcon);
// The browser tab's icon; the renderer build copies renderer/public as is.
files['../renderer/public/favicon.png'] = render(64, appIcon);

for (const [name, data] of Object.entries(files)) {
  const path = join(OUT, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, data);
  console.log(`${name} (${data.length} bytes)`);
}
