// A live tail of the events socket: each event's kind, key and version, and the gaps a subscriber sees.
import { events } from './api.js';

const keepRows = 500;

export function mount(element) {
  element.innerHTML = `<div class="toolbar">topic prefix <input id="topic" placeholder="e.g. batch: or invalidated:feed">
    <button id="apply">Follow</button><button id="clear">Clear</button><span id="tail-state" class="muted"></span>
    <span id="gaps" class="muted"></span></div>
    <div id="tail"><table><thead><tr><th>time</th><th>topic</th><th>kind</th><th>layout</th><th>version</th><th>detail</th></tr></thead><tbody id="rows"></tbody></table></div>`;
  const rows = element.querySelector('#rows');
  const last = new Map();
  let gaps = 0;
  let stop = () => {};
  const follow = () => {
    stop();
    last.clear();
    const topic = element.querySelector('#topic').value;
    element.querySelector('#tail-state').textContent = 'connecting';
    stop = events(topic, (event) => {
      const body = event.event ?? {};
      const row = document.createElement('tr');
      let detail = body.reason ?? '';
      if (body.event === 'batch') detail = `del ${body.deletes?.length ?? 0} ins ${body.inserts?.length ?? 0} mov ${body.moves?.length ?? 0} rel ${body.reloads?.length ?? 0}`;
      if (body.layout !== undefined && Number.isFinite(body.version)) {
        const seen = last.get(body.layout);
        if (seen !== undefined && body.version !== seen + 1) {
          row.className = 'gap';
          gaps++;
          detail = `gap: ${seen} → ${body.version}; ${detail}`;
          element.querySelector('#gaps').textContent = `${gaps} gap${gaps === 1 ? '' : 's'}`;
        }
        last.set(body.layout, body.version);
      }
      for (const value of [new Date().toISOString().slice(11, 23), event.topic, body.event ?? '', body.layout ?? '', body.version ?? '', detail]) {
        const cell = document.createElement('td');
        cell.textContent = value;
        row.append(cell);
      }
      row.dataset.kind = body.event ?? '';
      row.dataset.layout = body.layout ?? '';
      row.dataset.version = body.version ?? '';
      rows.prepend(row);
      while (rows.childElementCount > keepRows) rows.lastElementChild.remove();
    }, (state) => { element.querySelector('#tail-state').textContent = state; });
  };
  element.querySelector('#apply').onclick = follow;
  element.querySelector('#topic').onkeydown = (e) => { if (e.key === 'Enter') follow(); };
  element.querySelector('#clear').onclick = () => { rows.replaceChildren(); gaps = 0; element.querySelector('#gaps').textContent = ''; };
  follow();
  return () => stop();
}
