// Pages by URL hash; each page module exports mount(element) returning an unmount function.
import { onUnauthorized, setToken } from './api.js';

const pages = {
  overview: () => import('./overview.js'),
  layouts: () => import('./layouts.js'),
  events: () => import('./events.js'),
  playground: () => import('./playground.js'),
};
let unmount = () => {};

async function show() {
  const name = (location.hash.slice(1).split('/')[0]) || 'overview';
  const load = pages[name] ?? pages.overview;
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.id === `nav-${name}`);
  unmount();
  const element = document.getElementById('page');
  element.replaceChildren();
  const page = await load();
  unmount = page.mount(element, decodeURIComponent(location.hash.split('/').slice(1).join('/'))) ?? (() => {});
}

onUnauthorized(() => {
  const form = document.getElementById('token-form');
  form.hidden = false;
  form.onsubmit = (event) => {
    event.preventDefault();
    setToken(document.getElementById('token').value);
    form.hidden = true;
    show();
  };
});

window.addEventListener('hashchange', show);
show();
