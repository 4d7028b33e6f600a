// SPDX-License-Identifier: Apache-2.0

// Dictation in the extension's own offscreen document: one recognizer,
// one owner. It reports its state (listening, processing, idle) and the
// text heard to the service worker, which keeps them in session storage.

let rec = null;

function report(state, extra) {
  chrome.runtime.sendMessage({ op: 'dictation', state, ...extra });
}

function start(lang) {
  const SR = globalThis.SpeechRecognition || globalThis.webkitSpeechRecognition;
  if (!SR) return report('idle', { error: 'unsupported' });
  if (rec) return;
  rec = new SR();
  rec.lang = lang;
  rec.interimResults = false;
  rec.continuous = false;
  rec.onstart = () => report('listening');
  rec.onspeechend = () => report('processing');
  rec.onresult = (e) => {
    const text = [...e.results].map((r) => r[0].transcript).join(' ').trim();
    if (text) report('processing', { text });
  };
  rec.onerror = (e) => report('idle', { error: e.error || 'error' });
  rec.onend = () => { rec = null; report('idle'); };
  rec.start();
}

chrome.runtime.onMessage.addListener((m) => {
  if (!m || m.target !== 'offscreen') return false;
  if (m.op === 'start') start(m.lang);
  if (m.op === 'stop' && rec) rec.stop();
  return false;
});
