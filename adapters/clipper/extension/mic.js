// SPDX-License-Identifier: Apache-2.0

// The small visible page that asks for the microphone once, for the
// extension's own origin: the offscreen document that dictates cannot
// show a prompt, and the clipped page never holds the microphone.

import { loadStrings, t } from './lib/i18n.js';
import { $, translate } from './lib/ui.js';

async function allow() {
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    for (const track of stream.getTracks()) track.stop();
    await chrome.storage.local.set({ micGranted: true });
    $('status').textContent = t('mic_granted');
    setTimeout(() => window.close(), 800);
  } catch (e) {
    $('status').textContent = t('mic_denied');
  }
}

async function boot() {
  translate(await loadStrings());
  $('allow').addEventListener('click', allow);
}

boot();
