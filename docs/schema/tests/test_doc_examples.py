"""Every JSON example of docs/PROTOCOL.md validates against the schema.

Each ```json / ```jsonc block is named by (heading, n): the heading it stands under and its number
among that heading's JSON blocks. BLOCKS says what each one is. A block the table does not list (a new
example), or an entry whose block is gone or changed, fails `test_every_block_is_classified`: add it to
the table with its kind.
"""

import json
import re
from pathlib import Path

import pytest

from check import validate, validate_ref

REPO = Path(__file__).resolve().parents[3]

PROTOCOL = REPO / "docs" / "PROTOCOL.md"

# (heading, n) -> (kind, the block's first characters, whitespace removed, to catch a table gone stale)
#
# kinds:
#   request        a whole request body
#   requests       one whole request body per line
#   reply          a whole reply body
#   replies        one whole reply body per line
#   result         a reply's `result` shown alone (§5): wrapped in a success reply and checked as the reply
#                  to the last request shown under the same heading
#   error-replies  jsonc: `//` comment lines, and one error reply per other line
#   layout-input   §4's input without op: checked as a `layout` and as a `prepare` request
#   section        a bare section object
#   spec-sections  the fragment `"spec": …, "sections": […]`: checked as a `layout` request with bounds added
#   counts         the fragment `"counts": {…}`
#   attributes-objects / attributes-columns   a bare `attributes` value
#   event          an events-socket body
#   stats          the stats socket's answer
#   stats-journal  the fragment `"journal": {…}`: put into §8's stats example and checked as stats
#   stats-cluster  the fragment `"cluster": {…}`: put into §8's stats example and checked as stats
#   out-of-scope   §10, the broker <-> worker protocol: clients never see it; not described by these schemas
BLOCKS = {
    ("### Request", 1): ("request", '{"v":1,"id":"req-42","op":"ping"}'),
    ("### Success reply", 1): ("reply", '{"v":1,"id":"req-42","ok":true'),
    ("### Error reply", 1): ("reply", '{"v":1,"id":"req-42","ok":false'),
    ("## 3. Error codes", 1): ("error-replies", "//invalid_json:"),
    ("## 4. The layout input", 1): ("layout-input", '{"bounds":{"width":375'),
    ("### 4.5 `sections`", 1): ("section", '{"count":1000}'),
    ("### 4.5 `sections`", 2): ("section", '{"items":[{"height":120}'),
    ("### 4.5 `sections`", 3): ("section", '{"ids":["a","b","c"]'),
    ("### 4.6 Per-section `params` and how they merge", 1): ("spec-sections", '"spec":{"type":"columns"'),
    ("### 5.1 `ping`", 1): ("request", '{"v":1,"id":1,"op":"ping"}'),
    ("### 5.1 `ping`", 2): ("result", '{"version":"0.1.0"'),
    ("### 5.2 `layout`: compute and answer, keep nothing", 1): ("request", '{"v":1,"id":2,"op":"layout"'),
    ("### 5.2 `layout`: compute and answer, keep nothing", 2): ("result", '{"contentSize":{"width":375'),
    ("### 5.2 `layout`: compute and answer, keep nothing", 3): ("counts", '"counts":{"sections":1'),
    ("### 5.3 `prepare`: compute and keep under a key", 1): ("request", '{"v":1,"id":3,"op":"prepare"'),
    ("### 5.3 `prepare`: compute and keep under a key", 2): ("result", '{"layout":"feed","version":1'),
    ("### 5.4 `query`: elements of a kept layout", 1): ("request", '{"v":1,"id":4,"op":"query"'),
    ("### 5.4 `query`: elements of a kept layout", 2): ("result", '{"version":1,"attributes":['),
    ("### 5.4 `query`: elements of a kept layout", 3): ("request", '{"v":1,"id":5,"op":"query"'),
    ("### 5.4 `query`: elements of a kept layout", 4): ("result", '{"version":1,"attributes":['),
    ("### 5.4 `query`: elements of a kept layout", 5): ("request", '{"v":1,"id":6,"op":"query"'),
    ("### 5.4 `query`: elements of a kept layout", 6): ("result", '{"version":1,"attributes":['),
    ("### 5.4 `query`: elements of a kept layout", 7): ("request", '{"v":1,"id":"pinned","op":"query"'),
    ("### 5.4 `query`: elements of a kept layout", 8): ("result", '{"version":1,"attributes":['),
    ("### 5.4 `query`: elements of a kept layout", 9): ("request", '{"v":1,"id":"springs","op":"query"'),
    ("### 5.4 `query`: elements of a kept layout", 10): ("result", '{"version":1,"attributes":['),
    ("### 5.5 `bounds`: new bounds for a kept layout", 1): ("request", '{"v":1,"id":7,"op":"bounds"'),
    ("### 5.5 `bounds`: new bounds for a kept layout", 2): ("result", '{"invalidated":true'),
    ("### 5.6 `update`: a batch of changes", 1): ("request", '{"v":1,"id":8,"op":"update"'),
    ("### 5.6 `update`: a batch of changes", 2): ("result", '{"layout":"feed","version":3,'),
    ("### 5.7 `diff`: send the new contents, let the daemon find the batch", 1): ("request", '{"v":1,"id":9,"op":"diff"'),
    ("### 5.7 `diff`: send the new contents, let the daemon find the batch", 2): ("result", '{"layout":"feed","version":4,'),
    ("### 5.8 `list`: the kept layouts", 1): ("request", '{"v":1,"id":10,"op":"list"}'),
    ("### 5.8 `list`: the kept layouts", 2): ("result", '{"layouts":[{"layout":"feed"'),
    ("### 5.8 `list`: the kept layouts", 3): ("requests", '{"v":1,"id":12,"op":"list","prefix":"feed-"'),
    ("### 5.8 `list`: the kept layouts", 4): ("result", '{"layouts":[{"layout":"feed-1"'),
    ("### 5.8 `list`: the kept layouts", 5): ("result", '{"layouts":[{"layout":"feed"'),
    ("### 5.9 `drop`: forget a layout", 1): ("request", '{"v":1,"id":11,"op":"drop"'),
    ("### 5.9 `drop`: forget a layout", 2): ("result", '{"layout":"feed","version":5}'),
    ("## 6. Attributes: `return` and `format`", 1): ("attributes-objects", '[{"kind":"cell"'),
    ("## 6. Attributes: `return` and `format`", 2): ("attributes-columns", '{"kind":["header"'),
    ("## 6. Attributes: `return` and `format`", 3): ("reply", '{"v":1,"id":2,"ok":true,"result":{"contentSize"'),
    ("## 7. Events", 1): ("event", '{"event":"invalidated"'),
    ("## 7. Events", 2): ("event", '{"event":"batch"'),
    ("## 7. Events", 3): ("event", '{"event":"subscribed"'),
    ("## 8. The stats socket", 1): ("stats", '{"uptimeSeconds":3605.2'),
    ("## 8. The stats socket", 2): ("stats-journal", '"journal":{"url":"sqlite:data/layoutd.db"'),
    ("## 8. The stats socket", 3): ("stats-cluster", '"cluster":{"role":"broker"'),
    ("## 8. The stats socket", 4): ("stats-cluster", '"cluster":{"role":"worker"'),
    ("### `route`: the route table", 1): ("requests", '{"v":1,"id":1,"op":"route","layout":"feed"}'),
    ("### `route`: the route table", 2): ("result", '{"role":"broker","version":7,"epoch":1764000000003'),
    ("### `route`: the route table", 3): ("reply", '{"v":1,"id":1,"ok":true,"result":{"role":"daemon"'),
    ("### The direct endpoint", 1): ("replies", '{"v":1,"id":7,"ok":false,"error":{"code":"moved"'),
    ("### 10.3 READY", 1): ("out-of-scope", '{"protocol":5'),
    ("### 10.7 Rebuilds, moves and losses", 1): ("out-of-scope", '{"layout":"feed","version":12'),
    ("### 10.7 Rebuilds, moves and losses", 2): ("out-of-scope", '{"layout":"feed"}'),
    ("### 10.7 Rebuilds, moves and losses", 3): ("out-of-scope", '{"ok":true,"layout":"feed"'),
}

# Examples that break PROTOCOL.md's own rules (reported to the lead). Strict xfail: once the example is
# fixed the test passes unexpectedly, and this entry must go.
KNOWN_BAD: dict = {}


def extract_blocks(text):
    """[(heading, n, lang, body)] for every ```json / ```jsonc block, n counting from 1 per heading."""
    blocks, heading, counts = [], None, {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"^#{1,6} ", line):
            heading = line.strip()
        fence = re.match(r"^```(\S*)\s*$", line)
        if fence:
            end = i + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            lang = fence.group(1)
            if lang in ("json", "jsonc"):
                counts[heading] = counts.get(heading, 0) + 1
                blocks.append((heading, counts[heading], lang, "\n".join(lines[i + 1 : end])))
            i = end
        i += 1
    return blocks


BLOCK_LIST = extract_blocks(PROTOCOL.read_text(encoding="utf-8"))


def squeeze(text):
    return re.sub(r"\s+", "", text)


def test_every_block_is_classified():
    found = {(heading, n): body for heading, n, _, body in BLOCK_LIST}
    unclassified = [f"{key!r}: {squeeze(found[key])[:60]}" for key in found if key not in BLOCKS]
    gone = [repr(key) for key in BLOCKS if key not in found]
    changed = [
        f"{key!r}: expected it to start with {BLOCKS[key][1]!r}, it starts with {squeeze(found[key])[:40]!r}"
        for key in found
        if key in BLOCKS and not squeeze(found[key]).startswith(BLOCKS[key][1])
    ]
    problems = (
        [f"unclassified JSON block (add it to BLOCKS): {p}" for p in unclassified]
        + [f"BLOCKS lists a block PROTOCOL.md no longer has: {p}" for p in gone]
        + [f"BLOCKS is stale: {p}" for p in changed]
    )
    assert not problems, "\n".join(problems)


def _last_request_before(heading, n):
    for m in range(n - 1, 0, -1):
        kind = BLOCKS.get((heading, m), (None,))[0]
        if kind in ("request", "requests"):
            body = next(b for h, k, _, b in BLOCK_LIST if h == heading and k == m)
            return json.loads(_lines(body)[-1] if kind == "requests" else body)
    raise AssertionError(f"no request before result block {heading!r} #{n}")


def _lines(body):
    return [line for line in body.split("\n") if line.strip()]


def _stats_example():
    body = next(b for h, n, _, b in BLOCK_LIST if BLOCKS.get((h, n), ("",))[0] == "stats")
    return json.loads(body)


@pytest.mark.parametrize(
    "heading,n,lang,body",
    [pytest.param(*block, id=f"{block[0].lstrip('# ')[:40]}#{block[1]}") for block in BLOCK_LIST],
)
def test_block_validates(heading, n, lang, body):
    kind = BLOCKS.get((heading, n), (None,))[0]
    if kind is None:
        pytest.fail(f"unclassified block {heading!r} #{n} (see test_every_block_is_classified)")
    if kind == "out-of-scope":
        pytest.skip("§10 broker <-> worker protocol: not part of the client contract")
    if (heading, n) in KNOWN_BAD:
        with pytest.raises(ValueError):
            _check_block(kind, heading, n, body)
        pytest.xfail(KNOWN_BAD[(heading, n)])
    _check_block(kind, heading, n, body)


def _check_block(kind, heading, n, body):
    if kind == "request":
        validate("request", json.loads(body))
    elif kind == "requests":
        for line in _lines(body):
            validate("request", json.loads(line))
    elif kind == "reply":
        validate("reply", json.loads(body))
    elif kind == "replies":
        for line in _lines(body):
            validate("reply", json.loads(line))
    elif kind == "result":
        request = _last_request_before(heading, n)
        reply = {"v": 1, "id": request.get("id"), "ok": True, "result": json.loads(body)}
        validate("reply", reply)
        validate("reply", reply, request=request)
    elif kind == "error-replies":
        replies = [line for line in body.split("\n") if line.strip() and not line.strip().startswith("//")]
        assert replies
        for line in replies:
            reply = json.loads(line)
            assert reply["ok"] is False
            validate("reply", reply)
        codes = {json.loads(line)["error"]["code"] for line in replies}
        from check import _load  # every code of §3 has its example

        common = _load().contents("https://layoutd.invalid/schema/v1/common.schema.json")
        assert codes == set(common["$defs"]["errorCode"]["enum"])
    elif kind == "layout-input":
        job = json.loads(body)
        validate("request", {"op": "layout", **job})
        validate("request", {"op": "prepare", "layout": "doc", **job})
    elif kind == "section":
        section = json.loads(body)
        validate_ref("common.schema.json#/$defs/section", section)
        validate("request", {"op": "layout", "bounds": {"width": 375, "height": 667}, "spec": {"type": "flow"}, "sections": [section]})
    elif kind == "spec-sections":
        fragment = json.loads("{" + body + "}")
        validate("request", {"op": "layout", "bounds": {"width": 375, "height": 667}, **fragment})
    elif kind == "counts":
        validate_ref("common.schema.json#/$defs/counts", json.loads("{" + body + "}")["counts"])
    elif kind == "attributes-objects":
        validate_ref("common.schema.json#/$defs/attributesObjects", json.loads(body))
    elif kind == "attributes-columns":
        validate_ref("common.schema.json#/$defs/attributesColumns", json.loads(body))
    elif kind == "event":
        validate("event", json.loads(body))
    elif kind == "stats":
        validate("stats", json.loads(body))
    elif kind in ("stats-journal", "stats-cluster"):
        validate("stats", {**_stats_example(), **json.loads("{" + body + "}")})
    else:
        pytest.fail(f"unknown kind {kind!r} in BLOCKS")


# The binary format's header (PROTOCOL.md §6) with and without pin, beyond §6's one example.
BINARY_ATTRIBUTES = {
    "format": "binary", "count": 5,
    "kinds": ["cell", "header", "footer", "decoration"],
    "columns": [
        {"name": "kind", "type": "uint8", "count": 5, "byteOrder": "little", "frame": 1},
        {"name": "section", "type": "int32", "count": 5, "byteOrder": "little", "frame": 2},
        {"name": "item", "type": "int32", "count": 5, "byteOrder": "little", "frame": 3},
        {"name": "x", "type": "float64", "count": 5, "byteOrder": "little", "frame": 4},
        {"name": "y", "type": "float64", "count": 5, "byteOrder": "little", "frame": 5},
        {"name": "width", "type": "float64", "count": 5, "byteOrder": "little", "frame": 6},
        {"name": "height", "type": "float64", "count": 5, "byteOrder": "little", "frame": 7},
    ],
}
ZINDEX_COLUMN = {"name": "zIndex", "type": "int32", "count": 5, "byteOrder": "little", "frame": 8}


def test_binary_header_example():
    layout_request = {"op": "layout", "format": "binary", "bounds": {"width": 375, "height": 667},
                      "spec": {"type": "list"}, "sections": [{"count": 5}]}
    validate("request", layout_request)
    reply = {"v": 1, "id": 2, "ok": True, "result": {
        "contentSize": {"width": 375, "height": 236},
        "counts": {"sections": 2, "items": 3, "elements": 5},
        "attributes": BINARY_ATTRIBUTES}}
    validate("reply", reply)
    validate("reply", reply, request=layout_request)
    pinned = {"op": "query", "layout": "feed", "format": "binary", "rect": {"x": 0, "y": 0, "width": 1, "height": 1},
              "pin": {"footers": True}}
    query_reply = {"v": 1, "id": 3, "ok": True, "result": {
        "version": 1, "attributes": {**BINARY_ATTRIBUTES, "columns": BINARY_ATTRIBUTES["columns"] + [ZINDEX_COLUMN]}}}
    validate("reply", query_reply, request=pinned)
    unpinned_reply = {"v": 1, "id": 3, "ok": True, "result": {"version": 1, "attributes": BINARY_ATTRIBUTES}}
    validate("reply", unpinned_reply, request={**pinned, "pin": {}})
    with pytest.raises(ValueError, match="columns"):
        validate("reply", unpinned_reply, request=pinned)  # pinned: the zIndex column (frame 8) is missing


def test_binary_attachment_request():
    validate("request", {"op": "prepare", "layout": "big", "bounds": {"width": 375, "height": 667},
                         "spec": {"type": "justified"},
                         "sections": [{"count": 3, "aspectRatios": {"frame": 1}, "ids": ["a", "b", "c"]},
                                      {"heights": {"frame": 2}, "widths": {"frame": 3}}]})
