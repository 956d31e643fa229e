// A job laid out as you type with the stateless `layout` op (nothing is kept): pick an example, edit,
// drag the bounds, mirror it right to left, copy the request.
import { call, consoleSettings } from './api.js';

const ns = 'http://www.w3.org/2000/svg';
// Decorations under cells, headers and footers over them, as a collection view stacks them.
const depth = (kind) => (kind === 'decoration' || kind === 'sectionBackground' ? 0 : kind === 'cell' ? 1 : 2);
const jobs = ['list', 'columns', 'columnFlow', 'flow', 'justified', 'mosaic', 'waterfall', 'waterfall-seed004'];

export function mount(element) {
  element.innerHTML = `<div class="toolbar">example <select id="job">${jobs.map((j) => `<option>${j}</option>`).join('')}</select>
    width <input id="width" type="number" min="1" style="width:6em"> height <input id="height" type="number" min="1" style="width:6em">
    <label><input type="checkbox" id="rtl"> right to left</label>
    copy as <button data-copy="layoutctl">layoutctl</button><button data-copy="curl">curl</button><button data-copy="python">Python</button>
    <span id="pg-state" class="muted"></span></div>
    <div class="pg"><div><textarea id="editor" spellcheck="false"></textarea><div id="pg-error" class="error"></div></div>
    <div><div id="frame"><svg id="preview"></svg><div id="handle" title="drag to resize the bounds"></div></div>
    <pre id="copy-out" hidden></pre></div></div>`;
  const editor = element.querySelector('#editor');
  const width = element.querySelector('#width');
  const height = element.querySelector('#height');
  const rtl = element.querySelector('#rtl');
  const frame = element.querySelector('#frame');
  const preview = element.querySelector('#preview');
  const errorBox = element.querySelector('#pg-error');
  let sequence = 0;
  let timer = null;
  let maxItems = null;
  consoleSettings().then((s) => { maxItems = s.maxItems; }).catch(() => {});

  // The request the page sends: the editor's job with the bounds and direction of the controls.
  function request() {
    const job = JSON.parse(editor.value);
    job.op = 'layout';
    job.bounds = { ...(job.bounds ?? {}), width: Number(width.value), height: Number(height.value) };
    if (rtl.checked) job.layoutDirection = 'rightToLeft'; else delete job.layoutDirection;
    return job;
  }

  function showError(error) {
    errorBox.dataset.code = error.code ?? '';
    errorBox.dataset.path = error.path ?? '';
    errorBox.textContent = `${error.code ?? 'error'}${error.path ? ` at ${error.path}` : ''}: ${error.message}`;
    frame.style.opacity = 0.4;
    if (error.path) selectPath(error.path);
  }

  // Puts the editor's selection on the member the path names (its last name), so the fault is seen in place.
  function selectPath(path) {
    const names = path.match(/[A-Za-z_]\w*/g) ?? [];
    const name = names[names.length - 1];
    if (!name) return;
    const at = editor.value.lastIndexOf(`"${name}"`);
    if (at >= 0 && document.activeElement !== editor) editor.setSelectionRange(at, at + name.length + 2);
  }

  async function run() {
    const mine = ++sequence;
    let job;
    try {
      job = request();
    } catch (error) {
      const position = /position (\d+)/.exec(error.message)?.[1];
      showError({ code: 'invalid_json', message: error.message + (position ? '' : ''), path: null });
      return;
    }
    element.querySelector('#pg-state').textContent = 'laying out…';
    const reply = await call(job).catch((error) => ({ ok: false, error: { code: 'unavailable', message: error.message } }));
    if (mine !== sequence) return;
    element.querySelector('#pg-state').textContent = reply.ok ? `${reply.result.counts.items} items, ${reply.result.counts.elements} elements` : '';
    if (!reply.ok) { showError(reply.error); return; }
    errorBox.textContent = '';
    delete errorBox.dataset.path;
    frame.style.opacity = 1;
    draw(reply.result, job.bounds);
  }

  function draw(result, bounds) {
    const w = Math.max(bounds.width, result.contentSize.width);
    const h = result.contentSize.height;
    frame.style.width = `${bounds.width}px`;
    frame.style.height = `${bounds.height}px`;
    frame.style.overflow = 'auto';
    preview.setAttribute('width', w);
    preview.setAttribute('height', Math.max(h, 1));
    preview.replaceChildren(...result.attributes.map((a) => {
      const rect = document.createElementNS(ns, 'rect');
      rect.setAttribute('class', `el ${a.kind === 'sectionBackground' ? 'decoration' : a.kind}`);
      for (const name of ['x', 'y', 'width', 'height']) rect.setAttribute(name, a[name]);
      rect.dataset.kind = a.kind; rect.dataset.section = a.section; rect.dataset.item = a.item;
      return rect;
    }).sort((p, q) => depth(p.dataset.kind) - depth(q.dataset.kind)));
  }

  const soon = () => { clearTimeout(timer); timer = setTimeout(run, 150); };
  async function load(name) {
    const text = await (await fetch(`/console/jobs/${name}.json`)).text();
    const job = JSON.parse(text);
    editor.value = text;
    width.value = job.bounds?.width ?? 375;
    height.value = job.bounds?.height ?? 667;
    run();
  }

  // Drag the corner to change the bounds; the layout follows each step.
  element.querySelector('#handle').onpointerdown = (down) => {
    down.preventDefault();
    const start = { x: down.clientX, y: down.clientY, w: Number(width.value), h: Number(height.value) };
    const move = (event) => {
      width.value = Math.max(50, Math.round(start.w + event.clientX - start.x));
      height.value = Math.max(50, Math.round(start.h + event.clientY - start.y));
      frame.style.width = `${width.value}px`;
      frame.style.height = `${height.value}px`;
      soon();
    };
    const up = () => { window.removeEventListener('pointermove', move); window.removeEventListener('pointerup', up); };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };

  for (const button of element.querySelectorAll('[data-copy]')) {
    button.onclick = () => {
      let job;
      try { job = request(); } catch (error) { showError({ code: 'invalid_json', message: error.message }); return; }
      const body = JSON.stringify({ v: 1, id: 1, ...job });
      const compact = JSON.stringify(job);
      const text = {
        layoutctl: `cat > job.json <<'EOF'\n${compact}\nEOF\nlayoutctl layout job.json`,
        curl: `curl -s ${location.origin}/api/request -H 'Content-Type: application/json'${sessionStorage.getItem('layoutd.console.token') ? " -H 'Authorization: Bearer $LAYOUTD_CONSOLE_TOKEN'" : ''} -d '${body.replace(/'/g, "'\\''")}'`,
        python: `import json, zmq\nsocket = zmq.Context().socket(zmq.DEALER)\nsocket.connect("tcp://127.0.0.1:5555")\nsocket.send_multipart([b"", ${JSON.stringify(body)}.encode()])\nprint(json.loads(socket.recv_multipart()[-1]))`,
      }[button.dataset.copy];
      const out = element.querySelector('#copy-out');
      out.hidden = false;
      out.textContent = text;
      navigator.clipboard?.writeText(text).catch(() => {});
    };
  }

  editor.oninput = soon;
  width.oninput = soon;
  height.oninput = soon;
  rtl.onchange = run;
  element.querySelector('#job').onchange = (e) => load(e.target.value);
  load('list');
  return () => { sequence = -1; clearTimeout(timer); };
}
