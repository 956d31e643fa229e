// Live charts from the stats socket, one sample a second, the last five minutes kept in the page.
import { stats } from './api.js';
import { chart, format } from './chart.js';

const keep = 300;
let history = [];

function rates(key, pick) {
  // Per second, from consecutive samples of a counter map.
  const out = new Map();
  for (let i = 1; i < history.length; i++) {
    const a = history[i - 1], b = history[i];
    const seconds = Math.max(1e-3, b.uptimeSeconds - a.uptimeSeconds);
    const names = new Set([...Object.keys(pick(a) ?? {}), ...Object.keys(pick(b) ?? {})]);
    for (const name of names) {
      if (!out.has(name)) out.set(name, new Array(i - 1).fill(0));
      out.get(name).push(Math.max(0, ((pick(b)?.[name] ?? 0) - (pick(a)?.[name] ?? 0)) / seconds));
    }
    for (const [name, values] of out) if (values.length < i) values.push(0);
  }
  return out;
}

function gauge(fn) { return history.map(fn).map((v) => v ?? 0); }

export function mount(element) {
  element.innerHTML = '<div class="grid" id="charts"></div><h2>Cluster</h2><div id="cluster" class="muted">a single daemon</div>';
  const grid = element.querySelector('#charts');
  const charts = {
    requests: chart('requests/s by op'), latency: chart('latency p50 / p99 (µs, slowest op)'), errors: chart('errors/s by code'),
    queue: chart('in flight / queued'), memory: chart('layouts bytes'), layouts: chart('layouts kept'), events: chart('events published/s'),
  };
  for (const c of Object.values(charts)) grid.append(c.element);
  let stopped = false;
  async function tick() {
    if (stopped) return;
    try {
      const sample = await stats();
      history.push(sample);
      window.__samples = (window.__samples ?? 0) + 1;
      if (history.length > keep) history = history.slice(-keep);
      charts.requests.draw(rates('requests', (s) => s.requests), '/s');
      const worst = (s, q) => Math.max(0, ...Object.values(s.latencyMicros ?? {}).map((l) => l[q] ?? 0));
      charts.latency.draw(new Map([['p50', gauge((s) => worst(s, 'p50'))], ['p99', gauge((s) => worst(s, 'p99'))]]), 'µs');
      charts.errors.draw(rates('errors', (s) => s.errors), '/s');
      charts.queue.draw(new Map([['inFlight', gauge((s) => s.inFlight)], ['queued', gauge((s) => s.queued ?? s.cluster?.waiting)]]));
      charts.memory.draw(new Map([['bytes', gauge((s) => s.layouts?.bytes ?? s.cluster?.recipes?.bytes)]]), 'B');
      charts.layouts.draw(new Map([['count', gauge((s) => s.layouts?.count ?? s.cluster?.totals?.keys)]]));
      charts.events.draw(rates('events', (s) => ({ published: s.eventsPublished ?? 0 })), '/s');
      showCluster(element.querySelector('#cluster'), sample);
      document.getElementById('status').textContent = `up ${format(sample.uptimeSeconds)} s`;
    } catch (error) {
      document.getElementById('status').textContent = `stats: ${error.message}`;
    }
    setTimeout(tick, 1000);
  }
  tick();
  return () => { stopped = true; };
}

function showCluster(element, sample) {
  const cluster = sample.cluster;
  if (!cluster || cluster.role !== 'broker') {
    element.textContent = cluster ? `role ${cluster.role}` : 'a single daemon';
    return;
  }
  element.classList.remove('muted');
  const rows = (cluster.workers ?? []).map((w) => `<tr><td>${w.id}</td><td>${w.state}</td><td>${w.keys}</td><td>${w.inFlight}/${w.busy}/${w.threads}</td>` +
    `<td>${w.routed}</td><td>${w.direct ? format(w.direct.reads) : '–'}</td><td>${w.direct ? `${w.direct.leaseExpiries} exp.` : '–'}</td><td>${(w.lastHeartbeatAgeSeconds ?? 0).toFixed(2)} s</td></tr>`);
  const journal = sample.journal ? `journal: ${escape(JSON.stringify(sample.journal)).slice(0, 300)}` : '';
  element.innerHTML = `<p>broker, ${cluster.standby ? 'standby' : 'active'}, epoch ${cluster.epoch}; ${cluster.totals?.alive ?? 0} of ${cluster.totals?.workers ?? 0} workers live, ` +
    `${cluster.recipes?.count ?? 0} recipes, ${cluster.keysInMotion ?? 0} keys moving</p>` +
    `<table id="workers"><thead><tr><th>worker</th><th>state</th><th>keys</th><th>in flight/busy/threads</th><th>routed</th><th>direct reads</th><th>lease</th><th>heartbeat</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
    `<p class="muted">${journal}</p>`;
}

function escape(text) { return text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]); }
