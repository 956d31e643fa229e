// A small SVG line chart of the last samples: no library, redrawn whole each second.
const colors = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563'];
const ns = 'http://www.w3.org/2000/svg';

export function chart(title) {
  const card = document.createElement('div');
  card.className = 'card';
  card.innerHTML = `<h3>${title} <span class="muted now"></span></h3><svg class="chart" viewBox="0 0 300 100" preserveAspectRatio="none"></svg><div class="legend"></div>`;
  const svg = card.querySelector('svg');
  return {
    element: card,
    /** series: Map name → array of numbers (oldest first), unit: suffix for the latest value. */
    draw(series, unit = '') {
      const all = [...series.values()].flat().filter(Number.isFinite);
      const max = Math.max(1e-9, ...all);
      svg.replaceChildren();
      let index = 0;
      const legend = [];
      for (const [name, values] of series) {
        const color = colors[index++ % colors.length];
        const n = values.length;
        const points = values.map((v, i) => `${(n <= 1 ? 0 : (i / (n - 1)) * 300).toFixed(1)},${(100 - (v / max) * 95).toFixed(1)}`).join(' ');
        const line = document.createElementNS(ns, 'polyline');
        line.setAttribute('points', points);
        line.setAttribute('fill', 'none');
        line.setAttribute('stroke', color);
        line.setAttribute('vector-effect', 'non-scaling-stroke');
        svg.append(line);
        const last = values[n - 1] ?? 0;
        legend.push(`<span style="color:${color}">${name} ${format(last)}${unit}</span>`);
      }
      card.querySelector('.legend').innerHTML = legend.join('') || '<span class="muted">none yet</span>';
      card.querySelector('.now').textContent = `max ${format(max)}${unit}`;
    },
  };
}

export function format(value) {
  if (!Number.isFinite(value)) return '–';
  if (Math.abs(value) >= 1e9) return `${(value / 1e9).toFixed(1)}G`;
  if (Math.abs(value) >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (Math.abs(value) >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return Number.isInteger(value) ? `${value}` : value.toFixed(1);
}
