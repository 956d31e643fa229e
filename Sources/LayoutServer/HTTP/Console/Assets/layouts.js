// The kept layouts, and an inspector that asks only for what is on screen (rect queries as you scroll).
import { call, events, result } from './api.js';
import { format } from './chart.js';

const ns = 'http://www.w3.org/2000/svg';
// Decorations under cells, headers and footers over them, as a collection view stacks them.
const depth = (kind) => (kind === 'decoration' || kind === 'sectionBackground' ? 0 : kind === 'cell' ? 1 : 2);
// Chromium lays out no element taller than about 33.5 M px: past that, a scroll pixel is several content pixels.
const maxSpacer = 3e7;
const strip = 4096;

export function mount(element, key) {
  if (key) return inspector(element, key);
  element.innerHTML = `<div class="toolbar"><input id="search" placeholder="search keys" autofocus>
    sort <select id="sort"><option value="layout">key</option><option value="items">items</option><option value="bytes">bytes</option><option value="version">version</option></select>
    <span id="count" class="muted"></span></div>
    <table id="layouts"><thead><tr><th data-sort="layout">layout</th><th data-sort="version">version</th><th data-sort="items">items</th><th data-sort="bytes">bytes</th><th>namespace</th></tr></thead><tbody></tbody></table>
    <p class="error" id="list-error"></p>`;
  let all = [];
  const render = () => {
    const text = element.querySelector('#search').value;
    const by = element.querySelector('#sort').value;
    const rows = all.filter((l) => l.layout.includes(text));
    rows.sort((a, b) => by === 'layout' ? a.layout.localeCompare(b.layout) : (b[by] ?? 0) - (a[by] ?? 0));
    element.querySelector('#count').textContent = `${rows.length} of ${all.length}`;
    const body = element.querySelector('tbody');
    body.replaceChildren(...rows.slice(0, 2000).map((l) => {
      const row = document.createElement('tr');
      row.dataset.layout = l.layout;
      for (const value of [l.layout, l.version, format(l.items), format(l.bytes), l.namespace ?? '']) {
        const cell = document.createElement('td');
        cell.textContent = value;
        row.append(cell);
      }
      row.onclick = () => { location.hash = `layouts/${encodeURIComponent(l.layout)}`; };
      return row;
    }));
  };
  element.querySelector('#search').oninput = render;
  element.querySelector('#sort').onchange = render;
  for (const th of element.querySelectorAll('th[data-sort]')) th.onclick = () => { element.querySelector('#sort').value = th.dataset.sort; render(); };
  result({ op: 'list' }).then((r) => { all = r.layouts; render(); })
    .catch((error) => { element.querySelector('#list-error').textContent = error.message; });
}

function inspector(element, key) {
  element.innerHTML = `<div class="toolbar"><a href="#layouts">← layouts</a><strong id="key"></strong>
    <span>version <b id="version">–</b></span><span>content <b id="size">–</b></span>
    <label><input type="checkbox" id="pin"> pinned headers</label>
    <label><input type="checkbox" id="dynamics"> scroll dynamics</label>
    <span class="muted" id="meter"></span></div>
    <div class="split"><div><h3>Element</h3><div id="attributes" class="muted">click an element</div>
    <p class="muted">cells, <span style="background:var(--header)">headers</span>, <span style="background:var(--footer)">footers</span>, <span style="background:var(--decoration)">decorations</span>; red: moved by the last change</p>
    <p class="error" id="inspect-error"></p></div>
    <div id="viewport"><svg id="canvas"></svg><div id="spacer"></div></div></div>`;
  element.querySelector('#key').textContent = key;
  const viewport = element.querySelector('#viewport');
  const spacer = element.querySelector('#spacer');
  const canvas = element.querySelector('#canvas');
  // What the inspector asked for, for the browser tests and the bench (window.__console).
  const meter = { requests: 0, inFlight: 0, maxInFlight: 0, elements: 0, steps: 0, pending: true, lastRect: null };
  window.__console = meter;
  const state = { width: 0, height: 0, version: 0, fetched: null, frames: new Map(), lastTop: 0, dirty: false, stopped: false, chosen: null };

  const ask = async (request) => {
    meter.requests++; meter.inFlight++; meter.maxInFlight = Math.max(meter.maxInFlight, meter.inFlight);
    try { return await result({ layout: key, ...request }); } finally { meter.inFlight--; }
  };
  const ratio = () => (state.height > maxSpacer ? state.height / maxSpacer : 1);
  const visible = () => ({ x: viewport.scrollLeft, y: viewport.scrollTop * ratio(), width: viewport.clientWidth, height: viewport.clientHeight });
  const pinned = () => element.querySelector('#pin').checked;
  const springs = () => element.querySelector('#dynamics').checked;

  function setSize(width, height) {
    state.width = width; state.height = height;
    spacer.style.height = `${Math.min(height, maxSpacer)}px`;
    spacer.style.width = `${Math.max(1, width)}px`;
    spacer.style.marginTop = `-${viewport.clientHeight}px`;
    element.querySelector('#size').textContent = `${format(width)} × ${format(height)}`;
  }

  function place() {
    const v = visible();
    canvas.setAttribute('width', v.width);
    canvas.setAttribute('height', v.height);
    canvas.setAttribute('viewBox', `${v.x} ${v.y} ${v.width} ${v.height}`);
  }

  function draw(attributes, highlight) {
    const previous = state.frames;
    state.frames = new Map();
    const rects = attributes.map((a) => {
      const id = `${a.kind}/${a.section}/${a.item}`;
      const frame = `${a.x},${a.y},${a.width},${a.height}`;
      state.frames.set(id, frame);
      const rect = document.createElementNS(ns, 'rect');
      rect.setAttribute('class', `el ${a.kind === 'sectionBackground' ? 'decoration' : a.kind}`);
      for (const name of ['x', 'y', 'width', 'height']) rect.setAttribute(name, a[name]);
      rect.dataset.kind = a.kind; rect.dataset.section = a.section; rect.dataset.item = a.item;
      if (highlight && depth(a.kind) > 0 && previous.get(id) !== frame) rect.classList.add('moved');
      if (state.chosen === id) rect.classList.add('chosen');
      rect.onclick = () => choose(a, id);
      return rect;
    });
    rects.sort((p, q) => depth(p.dataset.kind) - depth(q.dataset.kind));
    canvas.replaceChildren(...rects);
    meter.elements = rects.length;
    if (highlight) setTimeout(() => { for (const r of canvas.querySelectorAll('.moved')) r.classList.remove('moved'); }, 1500);
  }

  function choose(a, id) {
    state.chosen = id;
    for (const r of canvas.querySelectorAll('.chosen')) r.classList.remove('chosen');
    for (const r of canvas.querySelectorAll('rect')) if (`${r.dataset.kind}/${r.dataset.section}/${r.dataset.item}` === id) r.classList.add('chosen');
    const shown = { kind: a.kind, section: a.section, item: a.item, frame: { x: a.x, y: a.y, width: a.width, height: a.height }, z: a.zIndex ?? 0 };
    for (const [k, v] of Object.entries(a)) if (!['kind', 'section', 'item', 'x', 'y', 'width', 'height', 'zIndex'].includes(k)) shown[k] = v;
    element.querySelector('#attributes').textContent = JSON.stringify(shown, null, 2);
  }

  // One request in flight at most: a scroll during it marks the view dirty, asked for when it returns.
  async function refresh(highlight = false) {
    if (state.stopped) return;
    if (meter.inFlight > 0) { state.dirty = true; meter.pending = true; return; }
    meter.pending = false;
    const v = visible();
    const exact = pinned() || springs();
    const rect = exact ? v : { x: 0, y: Math.max(0, v.y - v.height), width: Math.max(state.width, v.x + v.width), height: v.height * 3 };
    const request = { op: 'query', rect };
    if (pinned()) request.pin = { headers: true };
    if (springs()) request.dynamics = { scrollDelta: v.y - state.lastTop, touch: { x: v.x + v.width / 2, y: v.y + v.height / 2 } };
    state.lastTop = v.y;
    try {
      const r = await ask(request);
      state.fetched = exact ? null : rect;
      meter.lastRect = rect;
      element.querySelector('#version').textContent = r.version;
      state.version = Math.max(state.version, r.version);
      draw(r.attributes, highlight);
      element.querySelector('#inspect-error').textContent = '';
    } catch (error) {
      element.querySelector('#inspect-error').textContent = `${error.error?.code ?? ''} ${error.message}`;
    }
    if (state.dirty) { state.dirty = false; meter.pending = false; onScroll(); }
  }

  function onScroll() {
    meter.steps++;
    place();
    const v = visible();
    const f = state.fetched;
    if (f && v.y >= f.y && v.y + v.height <= f.y + f.height && v.x + v.width <= f.x + f.width) return;
    refresh();
  }

  // The content's extent: strips of the full width down the layout, doubling, then halving to the end.
  async function measure() {
    const probe = async (y, height = strip) => (await ask({ op: 'query', rect: { x: 0, y, width: 1e7, height } })).attributes;
    let lo = 0, hi = null, width = 0, bottom = 0;
    const note = (attributes) => { for (const a of attributes) { width = Math.max(width, a.x + a.width); bottom = Math.max(bottom, a.y + a.height); } return attributes.length > 0; };
    note(await probe(0));
    for (let y = strip; y < 1e13; y *= 2) {
      if (note(await probe(y))) lo = y; else { hi = y; break; }
    }
    hi ??= lo + strip;
    while (hi - lo > strip) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (note(await probe(mid))) lo = mid; else hi = mid;
    }
    note(await probe(lo, hi - lo + strip));
    return { width, height: bottom };
  }

  const stopEvents = events('', (event) => {
    const body = event.event;
    if (!body || body.layout !== key || !['invalidated', 'batch'].includes(body.event)) return;
    if (body.version <= state.version) return;
    state.version = body.version;
    if (body.contentSize) setSize(body.contentSize.width, body.contentSize.height);
    place();
    state.fetched = null;
    refresh(true);
  });

  meter.view = visible;
  let scheduled = false;
  viewport.addEventListener('scroll', () => {
    // One look per frame, however many scroll events it had.
    if (scheduled) return;
    scheduled = true;
    meter.pending = true;
    requestAnimationFrame(() => { scheduled = false; meter.pending = false; onScroll(); });
  }, { passive: true });
  element.querySelector('#pin').onchange = () => { state.fetched = null; refresh(); };
  element.querySelector('#dynamics').onchange = () => { state.fetched = null; refresh(); };
  measure().then(({ width, height }) => { setSize(width, height); place(); return refresh(); })
    .catch((error) => { element.querySelector('#inspect-error').textContent = `${error.error?.code ?? ''} ${error.message}`; });
  return () => { state.stopped = true; stopEvents(); };
}
