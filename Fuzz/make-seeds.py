#!/usr/bin/env python3
"""Writes Fuzz/corpus-seed/: every example job as `layout` and `prepare`, the example updates as `update`
and `diff` on the `list` base layout, and hand-written requests of every op (docs/FUZZING.md).
Run from anywhere; it rewrites the seed files it owns and leaves others alone."""
import json, pathlib

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "Fuzz" / "corpus-seed"
out.mkdir(exist_ok=True)

def write(name, request):
    text = request if isinstance(request, str) else json.dumps(request, separators=(",", ":"))
    (out / f"{name}.json").write_text(text)

for path in sorted((root / "examples" / "jobs").glob("*.json")):
    kind, job = path.stem, json.loads(path.read_text())
    write(f"layout-{kind}", {"v": 1, "id": f"layout-{kind}", "op": "layout", **job})
    write(f"layout-{kind}-columns", {"v": 1, "id": 7, "op": "layout", "format": "columns",
                                      "return": {"rect": {"x": 0, "y": 100, "width": 200, "height": 300}}, **job})
    write(f"prepare-{kind}", {"v": 1, "id": f"prepare-{kind}", "op": "prepare", "layout": kind, "return": "all", **job})
    write(f"bounds-{kind}", {"v": 1, "id": 3, "op": "bounds", "layout": kind, "bounds": {"x": 0, "y": 10, "width": 320, "height": 600}})
    write(f"query-{kind}", {"v": 1, "id": 4, "op": "query", "layout": kind, "rect": {"x": 0, "y": 0, "width": 375, "height": 400}})

updates = root / "examples" / "updates"
write("update-list", {"v": 1, "id": "u1", "op": "update", "layout": "list", **json.loads((updates / "list-batch.json").read_text())})
write("diff-list", {"v": 1, "id": "d1", "op": "diff", "layout": "list", **json.loads((updates / "list-diff.json").read_text())})

write("ping", {"v": 1, "id": 1, "op": "ping"})
write("list", {"v": 1, "id": "l", "op": "list"})
write("drop", {"v": 1, "id": 2, "op": "drop", "layout": "feed"})
write("query-items", {"v": 1, "id": 5, "op": "query", "layout": "mosaic", "items": [[1, 0], [0, 1], [7, 7]], "format": "columns"})
write("query-supplementary", {"v": 1, "id": 6, "op": "query", "layout": "list", "supplementary": {"kind": "header", "sections": [1, 0]}})
write("query-decorations", {"v": 1, "id": 6.5, "op": "query", "layout": "list", "supplementary": {"kind": "sectionBackground"}})
write("update-every-kind", {"v": 1, "id": 8, "op": "update", "layout": "list", "ifVersion": 1, "updates": [
    {"delete": [0, 0]}, {"insert": [0, 0], "item": {"id": "x", "height": 30}}, {"move": [[0, 1], [1, 0]]},
    {"reload": [1, 2], "item": {"height": 80}}, {"deleteSection": 2},
    {"insertSection": 1, "section": {"header": 10, "ids": ["n-1"], "heights": [12]}},
    {"reloadSection": 0, "section": {"ids": ["a", "b"]}}]})
write("update-sections", {"v": 1, "id": 9, "op": "update", "layout": "waterfall", "updates": [
    {"moveSection": [0, 1]}, {"insertSection": 0, "section": {"count": 3, "params": {"columns": 3}}}]})
write("update-mosaic", {"v": 1, "id": 10, "op": "update", "layout": "mosaic", "updates": [
    {"delete": [0, 9]}, {"insert": [1, 0], "item": {"id": "p-100", "aspectRatio": 2}}, {"move": [[2, 0], [0, 0]]}]})
write("update-flow", {"v": 1, "id": 11, "op": "update", "layout": "flow", "updates": [
    {"insert": [0, 5], "item": {"id": "wide", "width": 400, "height": 20}}, {"reload": [1, 3], "item": {"span": True, "height": 50}}]})
write("diff-columns", {"v": 1, "id": 12, "op": "diff", "layout": "columns", "sections": [
    {"ids": ["a", "b", "c", "d"], "heights": [10, 20, None, 40]}, {"ids": [1, 2, 3], "items": [{}, {"height": 5}, {"aspectRatio": 0.5}]}]})
write("diff-columnFlow", {"v": 1, "id": 13, "op": "diff", "layout": "columnFlow", "sections": [{"ids": ["z", "y"]}, {"count": 0}]})
write("layout-waterfall-params", {"v": 1, "id": 14, "op": "layout", "bounds": {"width": 600, "height": 800},
    "spec": {"type": "waterfall", "columns": 3, "cellPadding": 4, "itemHeight": 80, "header": 20, "footer": 10},
    "contentInsets": {"left": 10, "right": 10}, "decorations": {"sectionBackground": True},
    "sections": [{"count": 7, "aspectRatios": [1, 2, 0.5, None, 1.5, 3, 1]}, {"count": 2, "header": 0, "params": {"columns": 1}}]})
write("layout-columns-placement", {"v": 1, "id": 15, "op": "layout", "format": "columns", "bounds": {"width": 375, "height": 667},
    "spec": {"type": "columns", "columnCount": 3, "sectionInsets": 16, "placement": "shortestFirst"},
    "sections": [{"count": 12, "heights": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}, {"count": 6, "params": {"columnCount": 2, "placement": "rightToLeft"}}]})
write("layout-empty", {"v": 1, "id": None, "op": "layout", "bounds": {"width": 0, "height": 0}, "spec": {"type": "list"}, "sections": []})
write("bad-json", '{"v":1,"id":7,"op":"ping"')
write("bad-op", {"v": 1, "id": 3, "op": "render"})
write("bad-id-late", '{"v":1,"op":"layout","sections":[{"count":-1}],"id":"late"}')

# Changes deep inside the long section (index 1) of the `-long` bases (Fuzz/Sources/layoutd-fuzz/BaseLayouts.swift).
for kind in ["columnFlow", "columns", "flow", "list", "mosaic", "waterfall"]:
    write(f"update-{kind}-long", {"v": 1, "id": f"u-{kind}-long", "op": "update", "layout": f"{kind}-long", "updates": [
        {"delete": [1, 40]}, {"insert": [1, 100], "item": {"id": "n-1", "height": 33}}, {"move": [[1, 200], [1, 20]]},
        {"reload": [1, 250], "item": {"height": 70, "aspectRatio": 0.5}}]})
    write(f"update-{kind}-long-tail", {"v": 1, "id": 2, "op": "update", "layout": f"{kind}-long", "updates": [
        {"insert": [1, 300], "item": {"id": "n-2"}}, {"delete": [1, 299]}]})
long_ids = [f"L{i}" for i in range(300)]
changed = long_ids[:50] + ["new-1"] + long_ids[50:120] + long_ids[121:200] + [long_ids[120]] + long_ids[200:]
list_job = json.loads((root / "examples" / "jobs" / "list.json").read_text())
write("diff-list-long", {"v": 1, "id": "d-long", "op": "diff", "layout": "list-long", "sections":
    list_job["sections"][:1] + [{"header": 30, "ids": changed}] + list_job["sections"][1:]})
