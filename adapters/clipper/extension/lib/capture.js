// SPDX-License-Identifier: Apache-2.0

// Full-page capture and region crop (10 §11, v0.51), run by the service
// worker on a gesture's activeTab grant. Only pixels leave the tab.

import './paint.js';

const SPACING_MS = 550; // captureVisibleTab's quota is about 2 a second
const MAX_SLICES = 20;
const MAX_HEIGHT = 30000;
const MAX_WIDTH = 1568;
const MAX_JPEG = 4 * 1024 * 1024;

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

async function inTab(tabId, func, args) {
  const [res] = await chrome.scripting.executeScript({ target: { tabId }, func, args: args || [] });
  return res && res.result;
}

// step scrolls to y, hiding fixed and sticky elements after the first
// slice, and re-measures the page (lazy pages grow while scrolled).
function step(y, hide) {
  if (hide && !window.__monkeyHidden) {
    window.__monkeyHidden = [];
    for (const el of document.querySelectorAll('body *')) {
      const pos = getComputedStyle(el).position;
      if (pos === 'fixed' || pos === 'sticky') {
        window.__monkeyHidden.push([el, el.style.getPropertyValue('visibility'), el.style.getPropertyPriority('visibility')]);
        el.style.setProperty('visibility', 'hidden', 'important');
      }
    }
  }
  window.scrollTo(0, y);
  const doc = document.scrollingElement || document.documentElement;
  return { y: window.scrollY, vh: window.innerHeight, vw: window.innerWidth, h: doc.scrollHeight, dpr: window.devicePixelRatio || 1 };
}

// restore puts back the scroll position and every hidden element.
function restore(x, y) {
  for (const [el, v, p] of window.__monkeyHidden || []) {
    if (v) el.style.setProperty('visibility', v, p); else el.style.removeProperty('visibility');
  }
  delete window.__monkeyHidden;
  window.scrollTo(x, y);
  return true;
}

// lastShot is when this worker last captured, so the spacing holds
// across clips too, not only between the slices of one.
let lastShot = 0;

async function shoot(windowId) {
  const wait = SPACING_MS - (Date.now() - lastShot);
  if (wait > 0) await sleep(wait);
  lastShot = Date.now();
  const url = await chrome.tabs.captureVisibleTab(windowId, { format: 'png' });
  return { bitmap: await createImageBitmap(await (await fetch(url)).blob()) };
}

/**
 * fullPage captures the tab from top to end, slice by slice, and returns
 * a JPEG Blob. A page that cannot be scripted yields one viewport.
 */
export async function fullPage(tab) {
  let start;
  try {
    start = await inTab(tab.id, () => ({ x: window.scrollX, y: window.scrollY }));
  } catch {
    const one = await shoot(tab.windowId);
    return toJPEG([{ y: 0, bitmap: one.bitmap }], one.bitmap.width, one.bitmap.height);
  }
  const slices = [];
  let m = null;
  try {
    let y = 0;
    for (let i = 0; i < MAX_SLICES; i++) {
      m = await inTab(tab.id, step, [y, i > 0]);
      if (i > 0 && m.y <= slices[slices.length - 1].y) break; // scrolling stopped advancing
      const s = await shoot(tab.windowId);
      slices.push({ y: m.y, bitmap: s.bitmap });
      if (m.y + m.vh >= m.h || m.y + m.vh >= MAX_HEIGHT) break;
      y = m.y + m.vh;
    }
  } finally {
    await inTab(tab.id, restore, [start.x, start.y]).catch(() => {});
  }
  const scale = slices[0].bitmap.width / m.vw; // device pixels per CSS pixel
  const top = slices[slices.length - 1];
  const height = Math.min(MAX_HEIGHT, (top.y + m.vh) * scale);
  return toJPEG(slices.map((s) => ({ y: s.y * scale, bitmap: s.bitmap })), slices[0].bitmap.width, height);
}

/** crop cuts a CSS-pixel rectangle out of the visible tab, in device pixels. */
export async function crop(tab, rect) {
  const one = await shoot(tab.windowId);
  const k = one.bitmap.width / rect.vw;
  const sx = Math.max(0, Math.round(rect.x * k));
  const sy = Math.max(0, Math.round(rect.y * k));
  const w = Math.max(1, Math.min(one.bitmap.width - sx, Math.round(rect.w * k)));
  const h = Math.max(1, Math.min(one.bitmap.height - sy, Math.round(rect.h * k)));
  const canvas = new OffscreenCanvas(w, h);
  const g = canvas.getContext('2d');
  g.drawImage(one.bitmap, sx, sy, w, h, 0, 0, w, h);
  globalThis.__monkeyPaint.paint(g, rect.shapes || [], k); // the annotations, as vectors, at full resolution
  return encode(canvas);
}

// toJPEG stacks slices onto one canvas, width capped at 1568 px.
async function toJPEG(slices, width, height) {
  const f = Math.min(1, MAX_WIDTH / width);
  const canvas = new OffscreenCanvas(Math.round(width * f), Math.max(1, Math.round(height * f)));
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  for (const s of slices) ctx.drawImage(s.bitmap, 0, Math.round(s.y * f), Math.round(s.bitmap.width * f), Math.round(s.bitmap.height * f));
  return encode(canvas);
}

// encode lowers the JPEG quality until the file fits 4 MiB.
async function encode(canvas) {
  let blob;
  for (const q of [0.85, 0.7, 0.55, 0.4, 0.25]) {
    blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: q });
    if (blob.size <= MAX_JPEG) break;
  }
  return blob;
}

/** b64 is a Blob's bytes in standard base64. */
export async function b64(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
