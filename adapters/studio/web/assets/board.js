// SPDX-License-Identifier: Apache-2.0
// The job board (10 §7, J.9.1–J.9.3): one per forest per tab, held in
// memory only (never browser storage), so a reload rediscovers jobs from
// the host and a closed tab takes its queue with it. Readers register a
// cadence and the watcher polls at the finest one; a waiting queue keeps
// its own 5 s beat even when nobody looks.

import { api, forestGet } from './api.js';

// CADENCE names the beats of 10 §7, in milliseconds.
export const CADENCE = { collapsed: 60000, open: 2000, queue: 5000 };
const MAX_BACKOFF = 300000;

const boards = new Map();

// board is the forest's board in this tab, made on first use.
export function board(forest) {
  if (!boards.has(forest)) boards.set(forest, new Board(forest));
  return boards.get(forest);
}

const enc = encodeURIComponent;

// lockedBy reads the job an E_LOCKED refusal names ("job <id> is running").
export function lockedBy(err) {
  const m = err && err.code === 'E_LOCKED' && String(err.message).match(/job (\S+) is running/);
  return m ? m[1] : '';
}

// Board is the forest's job list, its watcher and its queue. Every
// change notifies the subscribers with the board itself.
export class Board {
  constructor(forest) {
    this.forest = forest;
    this.jobs = [];          // newest first, as GET …/jobs lists them
    this.loaded = false;
    this.error = null;       // the last refusal of a read
    this.stopped = false;    // 401/403: polling stops
    this.queue = [];         // FIFO of {id, label, body}
    this.held = null;        // why the queue waits for the operator, or null
    this.awaiting = '';      // the job the queue's head waits behind
    this.cancelled = new Set(); // job ids a cancel was asked for
    this.readers = new Map();
    this.listeners = new Set();
    this.timer = null;
    this.due = 0;
    this.failures = 0;
    this.seq = 0;
    this.firing = false;
    this.reading = false;    // one read at a time
  }

  // running is the job running on the forest as this key sees it.
  running() { return this.jobs.find((j) => j.state === 'running') || null; }

  // find is a job the board holds.
  find(id) { return this.jobs.find((j) => j.id === id) || null; }

  subscribe(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }

  notify(event) { for (const fn of [...this.listeners]) fn(this, event); }

  // watch registers a reader's cadence; the returned function releases
  // it. The first reader makes the first read.
  watch(ms) {
    const token = ++this.seq;
    this.readers.set(token, ms);
    if (!this.loaded && !this.timer && !this.reading) this.refresh();
    else this.schedule();
    return () => { this.readers.delete(token); this.schedule(); };
  }

  // cadence is the finest beat asked, or 0 when nobody needs polling.
  cadence() {
    const beats = [...this.readers.values()];
    if (this.queue.length && !this.held) beats.push(CADENCE.queue);
    return beats.length ? Math.min(...beats) : 0;
  }

  // schedule arms the timer at the finest cadence (with backoff after
  // errors); an earlier due time replaces a later one.
  schedule() {
    if (this.stopped) return;
    const ms = this.cadence();
    if (!ms) { clearTimeout(this.timer); this.timer = null; this.due = 0; return; }
    const wait = Math.min(ms * 2 ** this.failures, Math.max(ms, MAX_BACKOFF));
    const due = Date.now() + wait;
    if (this.timer && this.due <= due) return;
    clearTimeout(this.timer);
    this.due = due;
    this.timer = setTimeout(() => { this.timer = null; this.refresh(); }, wait);
  }

  // refresh reads the job list, notes the jobs that settled since the
  // last read, then moves the queue.
  async refresh() {
    if (this.stopped || this.reading) return;
    const before = new Map(this.jobs.map((j) => [j.id, j.state]));
    this.reading = true;
    try {
      const r = await forestGet(this.forest, 'jobs');
      this.jobs = r.data.jobs || [];
      this.loaded = true;
      this.error = null;
      this.failures = 0;
    } catch (e) {
      this.error = e;
      if (e.status === 401 || e.status === 403) this.stopped = true;
      else this.failures = Math.min(this.failures + 1, 8);
      this.notify({ type: 'error' });
      this.schedule();
      return;
    } finally {
      this.reading = false;
    }
    for (const j of this.jobs) {
      if (before.get(j.id) === 'running' && j.state !== 'running') this.notify({ type: 'settled', job: j });
    }
    this.notify({ type: 'read' });
    await this.pump();
    this.schedule();
  }

  // fetch reads one job the list lacks (an old id in an address); it
  // resolves null when the host no longer knows it.
  async fetch(id) {
    const known = this.find(id);
    if (known) return known;
    try {
      const j = (await forestGet(this.forest, `jobs/${enc(id)}`)).data.job;
      this.jobs = [j, ...this.jobs.filter((x) => x.id !== j.id)];
      return j;
    } catch (e) {
      if (e.code === 'E_NOT_FOUND' || e.status === 404) return null;
      throw e;
    }
  }

  // start POSTs a batch now; the answer's job joins the board.
  async start(body) {
    const j = (await api('POST', `/v1/forests/${enc(this.forest)}/ingest`, body)).data.job;
    this.jobs = [j, ...this.jobs.filter((x) => x.id !== j.id)];
    this.notify({ type: 'started', job: j });
    this.schedule();
    return j;
  }

  // enqueue is the explicit "queue" act: the batch waits its turn.
  enqueue(label, body) {
    const entry = { id: `q${++this.seq}`, label, body };
    this.queue.push(entry);
    const run = this.running();
    if (run && !this.awaiting) this.awaiting = run.id;
    this.notify({ type: 'queue' });
    this.schedule();
    this.pump();
    return entry;
  }

  remove(entryID) {
    this.queue = this.queue.filter((e) => e.id !== entryID);
    if (!this.queue.length) { this.held = null; this.awaiting = ''; }
    this.notify({ type: 'queue' });
    this.schedule();
  }

  clear() {
    this.queue = [];
    this.held = null;
    this.awaiting = '';
    this.notify({ type: 'queue' });
    this.schedule();
  }

  // startNext is the operator releasing a held queue.
  startNext() {
    this.held = null;
    this.awaiting = '';
    this.notify({ type: 'queue' });
    return this.pump();
  }

  // pump fires the head when nothing runs: E_LOCKED waits for the job it
  // names; any other refusal, or the awaited job ending cancelled, holds
  // the queue until the operator starts it or empties it (J.9.2).
  async pump() {
    if (this.firing || this.held || !this.queue.length) return;
    if (this.awaiting) {
      const j = this.find(this.awaiting);
      if (j && j.state === 'running') return;
      if (j && j.state === 'cancelled') { this.held = { reason: 'cancelled', job: j.id }; this.notify({ type: 'queue' }); return; }
      this.awaiting = '';
    }
    if (this.running()) { this.awaiting = this.running().id; return; }
    const head = this.queue[0];
    this.firing = true;
    try {
      const j = await this.start(head.body);
      this.queue = this.queue.filter((e) => e !== head);
      this.awaiting = this.queue.length ? j.id : '';
      this.notify({ type: 'fired', job: j });
    } catch (e) {
      const by = lockedBy(e);
      if (by) this.awaiting = by;
      else this.held = { reason: 'refused', message: e.message, code: e.code };
      this.notify({ type: 'queue' });
    } finally {
      this.firing = false;
      this.schedule();
    }
  }

  // settle resolves a job once it no longer runs, watching at the open
  // cadence meanwhile (someone is waiting on it).
  settle(id) {
    return new Promise((ok) => {
      const release = this.watch(CADENCE.open);
      const check = () => {
        const j = this.find(id);
        if (j && j.state !== 'running') { off(); release(); ok(j); }
      };
      const off = this.subscribe(check);
      check();
    });
  }

  // cancel asks the host to stop a job, once per job id.
  async cancel(id) {
    if (this.cancelled.has(id)) return;
    this.cancelled.add(id);
    this.notify({ type: 'cancel' });
    const j = (await api('POST', `/v1/forests/${enc(this.forest)}/jobs/${enc(id)}/cancel`, {})).data.job;
    this.jobs = this.jobs.map((x) => (x.id === j.id ? j : x));
    this.notify({ type: 'read' });
  }
}

// percent is a running job's progress, or null when its total is unknown.
export const percent = (j) => (j && j.total > 0 ? Math.floor((100 * j.done) / j.total) : null);

// follow keeps fn current with the board while el stays in the page;
// once el leaves, the subscription and the cadence are released.
export function follow(b, el, ms, fn) {
  let release = () => {};
  let shown = false; // an element not yet mounted has not left
  const off = b.subscribe((bd, ev) => {
    if (!el.isConnected) {
      if (shown) { off(); release(); }
      return;
    }
    shown = true;
    fn(bd, ev);
  });
  release = b.watch(ms);
  return () => { off(); release(); };
}
