// Writes the justified fixtures from flickr's justified-layout 4.1.0 (its lib/, which is not part of this
// repository: see README.md). Usage: node generate.js PATH/TO/justified-layout/lib OUT_DIR
const path = require('path'); const fs = require('fs');
const jl = require(path.resolve(process.argv[2], 'index.js'));
const out = process.argv[3];
fs.mkdirSync(out, { recursive: true });

function run(input, config) {
  const r = jl(JSON.parse(JSON.stringify(input)), config === undefined ? undefined : JSON.parse(JSON.stringify(config)));
  return {
    containerHeight: r.containerHeight, widowCount: r.widowCount,
    boxes: r.boxes.map(b => ({ left: b.left, top: b.top, width: b.width, height: b.height })),
  };
}
function sane(e) {
  return Number.isFinite(e.containerHeight) && e.boxes.every(b => [b.left, b.top, b.width, b.height].every(Number.isFinite) && b.width >= 0 && b.height >= 0);
}
// One member per line; boxes as [left, top, width, height], one per line.
function write(file, f) {
  const lines = ['{',
    ' "name": ' + JSON.stringify(f.name) + ',',
    ' "source": ' + JSON.stringify(f.source) + ',',
    ' "config": ' + JSON.stringify(f.config) + ',',
    ' "input": ' + JSON.stringify(f.input) + ',',
    ' "expected": {"containerHeight": ' + JSON.stringify(f.expected.containerHeight) + ', "widowCount": ' + JSON.stringify(f.expected.widowCount) + ', "boxes": [' +
      f.expected.boxes.map(b => '\n  ' + JSON.stringify([b.left, b.top, b.width, b.height])).join(',') + (f.expected.boxes.length ? '\n ' : '') + ']}',
    '}'];
  fs.writeFileSync(path.join(out, file), lines.join('\n') + '\n');
}

// flickr's test/test.js, one fixture per call (its assertions hold for these outputs).
const flickr = [
  ['additional-rows', "should create additional rows if it won't fit within constraints", [1, 2], { containerWidth: 200, targetRowHeight: 100 }],
  ['max-num-rows-limit', 'should not add the row if we are limiting it with maxNumRows', [1, 2, 1], { containerWidth: 200, targetRowHeight: 100, maxNumRows: 2 }],
  ['panorama-only-item', 'should handle a panorama as only row item', [5], undefined],
  ['closer-to-target', 'should allow new item added to the row to get closer to the targetRowHeight', [1, 4, 1.1], { containerWidth: 1000, targetRowHeight: 250 }],
  ['input-width-height', 'input: should handle width and height objects as input (fixtures/four-squares)', [{ width: 400, height: 400 }, { width: 500, height: 500 }, { width: 600, height: 600 }, { width: 700, height: 700 }], undefined],
  ['input-aspect-ratios', 'input: should handle an array of aspect ratios as input (fixtures/four-squares); config: should return a layout without passing in a config', [1, 1, 1, 1], undefined],
  ['container-width', 'config: should allow overriding of containerWidth (fixtures/four-squares-400)', [1, 1, 1, 1], { containerWidth: 400 }],
  ['container-padding', 'config: should allow overriding of containerPadding', [1], { containerPadding: 20 }],
  ['container-padding-sides', 'config: should allow overriding of containerPadding with multiple dimensions', [1], { containerPadding: { top: 50, left: 5, bottom: 10, right: 10 } }],
  ['box-spacing', 'config: should allow overriding of boxSpacing', [1, 1, 1, 1], { boxSpacing: 40 }],
  ['box-spacing-axes', 'config: should allow overriding of boxSpacing with multiple dimensions', [1, 1, 1, 1], { boxSpacing: { horizontal: 40, vertical: 5 } }],
  ['target-row-height', 'config: should allow overriding of targetRowHeight', [1, 1, 1, 1], { targetRowHeight: 255, targetRowHeightTolerance: 0 }],
  ['tolerance', 'config: should allow overriding of targetRowHeightTolerance', [1, 1, 1], { targetRowHeightTolerance: 0 }],
  ['max-num-rows', 'config: should allow overriding of maxNumRows', [1, 1, 1, 1, 1], { maxNumRows: 1 }],
  ['force-aspect-ratio', 'config: should allow overriding of forceAspectRatio', [2, 2, 2, 2], { forceAspectRatio: 1 }],
  ['show-widows', 'config: should allow overriding of showWidows', [1, 1, 1, 1], { showWidows: false }],
  ['breakout-cadence', 'config: should allow overriding of fullWidthBreakoutRowCadence', [1, 1, 1, 1, 2, 2, 2, 2], { fullWidthBreakoutRowCadence: 3 }],
  ['widows-previous-height', 'widows: should set them at the same height as previous rows which looks nicer', [1, 1, 1, 1], undefined],
  ['widows-after-breakout', 'widows: should set them at the same height as previous non-breakout row', [1, 1, 1, 1, 1, 1, 1, 1], { fullWidthBreakoutRowCadence: 3 }],
  ['widow-count-zero', 'widows: should return 0 value widowCount property if there are not any', [1, 1, 1], undefined],
  ['widow-count-two', 'widows: should return the number of widowCount in widows property if there are widows', [1, 1, 1, 1, 0.5], undefined],
  ['widows-left', 'widows: should return widows with a specified left layout', [1, 1, 1, 1], { widowLayoutStyle: 'left' }],
  ['widows-center-1', 'widows: should return widows with a centered layout for [1,1,1,1]', [1, 1, 1, 1], { containerWidth: 1060, boxSpacing: 10, widowLayoutStyle: 'center' }],
  ['widows-center-2', 'widows: should return widows with a centered layout for [1,1,1,1,1]', [1, 1, 1, 1, 1], { containerWidth: 1060, boxSpacing: 10, widowLayoutStyle: 'center' }],
  ['widows-center-3', 'widows: should return widows with a centered layout for [1.6,1,2.3,1.2,0.1]', [1.6, 1, 2.3, 1.2, 0.1], { containerWidth: 1060, boxSpacing: 10, widowLayoutStyle: 'center' }],
  ['widow-justify-single', 'widows: should return single widow with justified layout', [1, 1, 1, 2.5], { containerWidth: 880, boxSpacing: 10, widowLayoutStyle: 'justify' }],
  ['padding-bottom', 'containerPadding: should add padding to the bottom of the container too', [1], { containerPadding: 100 }],
  ['padding-zero', 'containerPadding: should handle 0 padding', [1, 1, 1], { containerPadding: 0, targetRowHeightTolerance: 0 }],
];
for (const [slug, test, input, config] of flickr) {
  const expected = run(input, config);
  if (!sane(expected)) throw new Error(slug);
  write('flickr-' + slug + '.json', { name: slug, source: 'flickr/justified-layout test/test.js: ' + test, input, config: config || {}, expected });
}

// Seeded random cases: mulberry32.
function mulberry32(a) { return function () { a |= 0; a = a + 0x6D2B79F5 | 0; let t = Math.imul(a ^ a >>> 15, 1 | a); t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t; return ((t ^ t >>> 14) >>> 0) / 4294967296; }; }
function randomCase(seed) {
  const r = mulberry32(seed);
  const pick = a => a[Math.floor(r() * a.length)];
  const num = (lo, hi, step) => lo + Math.floor(r() * ((hi - lo) / step + 1)) * step;
  const real = (lo, hi) => lo + r() * (hi - lo);
  const config = {};
  config.containerWidth = pick([320, 375, 414, 768, 1024, 1060, 1440, num(200, 1600, 1), real(300, 1200)]);
  const padding = r();
  if (padding < 0.25) config.containerPadding = num(0, 30, 1);
  else if (padding < 0.5) config.containerPadding = { top: num(0, 40, 1), left: num(0, 40, 0.5), bottom: num(0, 40, 1), right: num(0, 40, 0.5) };
  const spacing = r();
  if (spacing < 0.3) config.boxSpacing = num(0, 20, 1);
  else if (spacing < 0.55) config.boxSpacing = { horizontal: num(0, 24, 0.5), vertical: real(0, 24) };
  if (r() < 0.7) config.targetRowHeight = pick([80, 100, 120, 150, 200, 250, 320, num(40, 400, 1), real(60, 300)]);
  if (r() < 0.6) config.targetRowHeightTolerance = pick([0, 0.1, 0.15, 0.2, 0.3, 0.5, 1, real(0, 1)]);
  if (r() < 0.2) config.maxNumRows = num(1, 12, 1);
  if (r() < 0.1) config.forceAspectRatio = pick([1, 1.5, 0.75, real(0.3, 3)]);
  if (r() < 0.25) config.showWidows = false;
  if (r() < 0.25) config.fullWidthBreakoutRowCadence = num(1, 6, 1);
  if (r() < 0.6) config.widowLayoutStyle = pick(['left', 'justify', 'center']);
  const count = r() < 0.05 ? 0 : r() < 0.1 ? num(800, 1200, 1) : num(1, 120, 1);
  const input = [];
  const objects = r() < 0.25;
  for (let i = 0; i < count; i++) {
    const u = r();
    const ratio = u < 0.05 ? real(2.5, 8) : u < 0.1 ? real(0.1, 0.4) : pick([0.5625, 0.6667, 0.75, 1, 1.3333, 1.5, 1.7778, real(0.4, 2.5)]);
    if (objects && r() < 0.8) { const h = num(100, 4000, 1); input.push({ width: Math.max(1, Math.round(ratio * h)), height: h }); }
    else input.push(ratio);
  }
  return { input, config };
}
let written = 0;
for (let seed = 1; written < 60; seed++) {
  const { input, config } = randomCase(seed);
  const expected = run(input, config);
  if (!sane(expected)) { console.log('skipped seed', seed, '(flickr gives a negative or non-finite size)'); continue; }
  written++;
  write('random-' + String(seed).padStart(3, '0') + '.json', { name: 'random-' + seed, source: 'seeded random case, mulberry32 seed ' + seed, input, config, expected });
}
console.log('flickr cases', flickr.length, 'random cases', written);
