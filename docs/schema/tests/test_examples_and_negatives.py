"""The repository's example files validate; wrong documents are rejected with the path at fault."""

import copy
import json
from pathlib import Path

import pytest

from check import validate, validate_ref

REPO = Path(__file__).resolve().parents[3]

JOBS = sorted((REPO / "examples" / "jobs").glob("*.json"))
UPDATES = sorted((REPO / "examples" / "updates").glob("*.json"))


def test_there_are_examples():
    assert JOBS and UPDATES


@pytest.mark.parametrize("path", JOBS, ids=lambda p: p.name)
def test_job_file(path):
    """A job file is the layout input (examples/README.md): no op or id; the client adds them."""
    job = json.loads(path.read_text(encoding="utf-8"))
    assert "op" not in job or job["op"] in ("layout", "prepare")
    validate("request", {**job, "op": "layout"})
    validate("request", {**job, "op": "prepare", "layout": path.stem}, op="prepare")
    validate("request", {**job, "op": "layout", "return": {"rect": {"x": 0, "y": 0, "width": 375, "height": 300}},
                         "format": "columns", "layoutDirection": "rightToLeft"})


@pytest.mark.parametrize("path", UPDATES, ids=lambda p: p.name)
def test_update_file(path):
    """`{"updates": […]}` (or a bare array) is an update batch, `{"sections": […]}` a diff."""
    body = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(body, list):
        body = {"updates": body}
    op = "update" if "updates" in body else "diff"
    validate("request", {"v": 1, "id": path.stem, "layout": "inbox", **body, "op": op}, op=op)


# ---------------------------------------------------------------------------------------------------
# Wrong documents.

PING = {"v": 1, "id": 1, "ok": True, "result": {"version": "0.1.0", "layouts": ["list", "flow"], "uptimeSeconds": 1.5}}
QUERY = {"v": 1, "id": "q", "ok": True, "result": {"version": 3, "attributes": [
    {"kind": "header", "section": 0, "item": 0, "x": 0, "y": 0, "width": 375, "height": 28},
    {"kind": "cell", "section": 0, "item": 0, "x": 0, "y": 36, "width": 375, "height": 44},
    {"kind": "decoration", "section": 0, "item": 0, "x": 0, "y": 0, "width": 375, "height": 88,
     "elementKind": "sectionBackground", "zIndex": -1}]}}
BATCH = {"v": 1, "id": 8, "ok": True, "result": {
    "layout": "feed", "version": 3, "contentSize": {"width": 414, "height": 258},
    "deletes": [[0, 0]], "inserts": [[0, 0]], "moves": [{"from": [0, 1], "to": [1, 0]}], "reloads": [[1, 0]],
    "sections": {"deletes": [], "inserts": [], "moves": [], "reloads": []}}}
ERROR = {"v": 1, "id": None, "ok": False, "error": {"code": "invalid_request", "message": "m", "path": "spec.type"}}
LAYOUT = {"v": 1, "id": 2, "op": "layout", "bounds": {"width": 375, "height": 667},
          "spec": {"type": "list", "itemHeight": 44}, "sections": [{"count": 3}]}
ROUTE = {"v": 1, "id": 1, "ok": True, "result": {"version": 2, "epoch": 5,
          "workers": [{"worker": "w0", "direct": "tcp://127.0.0.1:5570"}, {"worker": "w1"}],
          "keys": [{"layout": "feed", "epoch": 5, "version": 3, "worker": "w0"}, {"layout": "wall", "epoch": 4, "version": 1}]}}
EVENT = {"event": "invalidated", "layout": "feed", "version": 2, "reason": "bounds", "contentSize": {"width": 1, "height": 2}}


DELETE = object()


def changed(doc, path, value):
    """A deep copy of doc with the member at path (a list of keys) set to value (or deleted: DELETE)."""
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc



def test_the_good_documents_are_good():
    validate("reply", PING)
    validate("reply", PING, op="ping")
    validate("reply", QUERY, op="query")
    validate("reply", BATCH, op="update")
    validate("reply", BATCH, op="diff")
    validate("reply", ERROR)
    validate("reply", ERROR, op="layout")
    validate("request", LAYOUT)
    validate("event", EVENT)
    validate("reply", ROUTE)
    validate("reply", ROUTE, op="route")
    validate("request", {"op": "route", "layout": "feed"})
    validate("request", {"op": "query", "layout": "f", "items": [[0, 0]], "epoch": 5, "minVersion": 3})
    validate("event", {"event": "route", "version": 3})


REJECTED = [
    # (kind, document, op, the JSON path the error must name)
    ("reply", changed(ERROR, ["error", "code"], "no_such_code"), None, "$.error.code"),
    ("reply", changed(ERROR, ["error", "hint"], "x"), None, "$.error"),
    ("reply", changed(ERROR, ["error", "message"], DELETE), None, "$.error"),
    ("reply", {"v": 1, "id": 1, "ok": False, "error": {"code": "unknown_op", "message": "m", "path": "opp"}}, None, "$.error.path"),
    ("reply", {"v": 1, "id": 1, "ok": False, "error": {"code": "unknown_op", "message": "m"}}, None, "$.error"),
    ("reply", {"v": 1, "id": 1, "ok": False, "error": {"code": "busy", "message": "m", "path": "id"}}, None, "$.error"),
    ("reply", {"v": 1, "id": 1, "ok": False, "error": {"code": "invalid_update", "message": "m", "path": "updates"}}, None, "$.error.path"),
    ("reply", changed(PING, ["result", "extra"], 1), None, "$.result"),
    ("reply", changed(PING, ["result", "extra"], 1), "ping", "$.result"),
    ("reply", changed(PING, ["result", "uptimeSeconds"], "1.5"), "ping", "$.result.uptimeSeconds"),
    ("reply", changed(PING, ["result", "layouts"], ["list", "grid"]), "ping", "$.result.layouts[1]"),
    ("reply", changed(PING, ["id"], [1]), "ping", "$.id"),
    ("reply", changed(PING, ["v"], 2), "ping", "$.v"),
    ("reply", changed(PING, ["trace"], "x"), "ping", "$"),
    ("reply", changed(QUERY, ["result", "attributes", 1, "zIndex"], 1), "query", "$.result.attributes[1]"),
    ("reply", changed(QUERY, ["result", "attributes", 0, "item"], 2), "query", "$.result.attributes[0].item"),
    ("reply", changed(QUERY, ["result", "attributes", 2, "zIndex"], DELETE), "query", "$.result.attributes[2]"),
    ("reply", changed(QUERY, ["result", "attributes", 1, "kind"], "supplementary"), "query", "$.result.attributes[1].kind"),
    ("reply", changed(QUERY, ["result", "attributes", 1, "width"], -1), "query", "$.result.attributes[1].width"),
    ("reply", changed(QUERY, ["result", "attributes", 1, "section"], 1.5), "query", "$.result.attributes[1].section"),
    ("reply", changed(QUERY, ["result", "version"], 0), "query", "$.result.version"),
    ("reply", changed(QUERY, ["result", "attributes"], {"kind": ["cell"], "section": [0], "item": [0], "x": [0], "y": [0], "width": [1]}), "query", "$.result.attributes"),
    ("reply", changed(BATCH, ["result", "layout"], DELETE), "update", "$.result"),
    ("reply", changed(BATCH, ["result", "key"], "feed"), "diff", "$.result"),
    ("reply", changed(BATCH, ["result", "moves"], [{"from": [0, 1], "to": [1, 0], "why": 1}]), "update", "$.result.moves[0]"),
    ("reply", changed(BATCH, ["result", "sections", "deletes"], DELETE), "diff", "$.result.sections"),
    ("reply", changed(BATCH, ["result", "deletes"], [[0, 0, 0]]), "update", "$.result.deletes[0]"),
    ("reply", changed(BATCH, ["result", "contentSize", "depth"], 1), "update", "$.result.contentSize"),
    ("reply", BATCH, "query", "$.result"),  # the right shape for another op
    ("reply", ROUTE, "list", "$.result"),
    ("request", changed(LAYOUT, ["op"], "render"), None, "$.op"),
    ("request", changed(LAYOUT, ["v"], 2), None, "$.v"),
    ("request", changed(LAYOUT, ["id"], {"n": 1}), None, "$.id"),
    ("request", changed(LAYOUT, ["spec", "itemHieght"], 50), None, "$.spec"),
    ("request", changed(LAYOUT, ["spec", "columnCount"], 2), None, "$.spec"),
    ("request", changed(LAYOUT, ["spec", "type"], "grid"), None, "$.spec.type"),
    ("request", changed(LAYOUT, ["spec", "itemHeight"], -5), None, "$.spec.itemHeight"),
    ("request", changed(LAYOUT, ["spec", "itemHeight"], 2e9), None, "$.spec.itemHeight"),
    ("request", changed(LAYOUT, ["bounds", "width"], "375"), None, "$.bounds.width"),
    ("request", changed(LAYOUT, ["bounds"], DELETE), None, "$"),
    ("request", changed(LAYOUT, ["sections", 0, "aspEctRatios"], [1]), None, "$.sections[0]"),
    ("request", changed(LAYOUT, ["sections", 0, "count"], 3.5), None, "$.sections[0].count"),
    ("request", changed(LAYOUT, ["sections", 0, "params"], {"columnCount": 2}), None, "$.sections[0].params"),
    ("request", changed(LAYOUT, ["sections", 0, "params"], {"type": "flow"}), None, "$.sections[0].params.type"),
    ("request", changed(LAYOUT, ["sections"], [{"items": [{}], "heights": [1]}]), None, "$.sections[0]"),
    ("request", changed(LAYOUT, ["sections"], [{"items": [{"id": "a"}, {}]}]), None, "$.sections[0].items[1]"),
    ("request", changed(LAYOUT, ["sections"], [{"items": [{"id": "a"}], "ids": ["a"]}]), None, "$.sections[0]"),
    ("request", changed(LAYOUT, ["sections"], [{"heights": [1, -5]}]), None, "$.sections[0].heights"),
    ("request", changed(LAYOUT, ["sections"], [{"spans": {"frame": 1}}]), None, "$.sections[0].spans"),
    ("request", changed(LAYOUT, ["sections"], [{"heights": {"frame": 0}}]), None, "$.sections[0].heights"),
    ("request", changed(LAYOUT, ["sections"], [{"ids": [None]}]), None, "$.sections[0].ids[0]"),
    ("request", changed(LAYOUT, ["return"], "some"), None, "$.return"),
    ("request", changed(LAYOUT, ["format"], "xml"), None, "$.format"),
    ("request", changed(LAYOUT, ["layoutDirection"], "RTL"), None, "$.layoutDirection"),
    ("request", {"op": "prepare", **{k: v for k, v in LAYOUT.items() if k != "op"}}, None, "$"),
    ("request", {"op": "prepare", "layout": "", **{k: v for k, v in LAYOUT.items() if k != "op"}}, None, "$.layout"),
    ("request", {"op": "query", "layout": "f", "rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "items": [[0, 0]]}, None, "$"),
    ("request", {"op": "query", "layout": "f"}, None, "$"),
    ("request", {"op": "query", "layout": "f", "items": [[0, 0]], "pin": {"headers": True}}, None, "$"),
    ("request", {"op": "query", "layout": "f", "rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "pin": {"header": True}}, None, "$.pin"),
    ("request", {"op": "query", "layout": "f", "rect": {"x": 0, "y": 0, "width": 1, "height": 1}, "dynamics": {"scrollDelta": 1, "touch": {"x": 0, "y": 0, "z": 0}}}, None, "$.dynamics.touch"),
    ("request", {"op": "query", "layout": "f", "rect": {"x": 0, "y": 0, "width": -1, "height": 1}}, None, "$.rect.width"),
    ("request", {"op": "query", "layout": "f", "items": [[0]]}, None, "$.items[0]"),
    ("request", {"op": "update", "layout": "f", "updates": [{"delete": "x"}]}, None, "$.updates[0].delete"),
    ("request", {"op": "update", "layout": "f", "updates": [{"delete": [0, 0], "insert": [0, 0]}]}, None, "$.updates[0]"),
    ("request", {"op": "update", "layout": "f", "updates": [{"insertSection": 0}]}, None, "$.updates[0]"),
    ("request", {"op": "update", "layout": "f", "ifVersion": -1, "updates": []}, None, "$.ifVersion"),
    ("request", {"op": "bounds", "layout": "f"}, None, "$"),
    ("request", {"op": "drop"}, None, "$"),
    ("request", {"op": "drop", "layout": "f", "ifVersion": 1.5}, None, "$.ifVersion"),
    ("request", {"op": "bounds", "layout": "f", "bounds": {"width": 1, "height": 1}, "ifVersion": "2"}, None, "$.ifVersion"),
    ("event", changed(EVENT, ["reason"], "expired"), None, "$.reason"),
    ("event", changed(EVENT, ["extra"], 1), None, "$"),
    ("event", changed(EVENT, ["event"], "changed"), None, "$.event"),
    ("event", {"event": "batch", "layout": "f", "version": 2, "contentSize": {"width": 1, "height": 1}}, None, "$"),
    # §11: direct reads and the route table
    ("reply", {"v": 1, "id": 1, "ok": False, "error": {"code": "behind", "message": "m"}}, None, "$.error"),
    ("reply", {"v": 1, "id": 1, "ok": False, "error": {"code": "read_only", "message": "m", "path": "layout"}}, None, "$.error.path"),
    ("reply", {"v": 1, "id": 1, "ok": False, "error": {"code": "invalid_request", "message": "m", "path": "x", "copy": {"epoch": 1, "version": 1}}}, None, "$.error"),
    ("reply", {"v": 1, "id": 1, "ok": False, "error": {"code": "moved", "message": "m", "copy": {"epoch": 1}}}, None, "$.error.copy"),
    ("reply", changed(ROUTE, ["result", "keys", 0, "owner"], "w"), "route", "$.result.keys[0]"),
    ("reply", changed(ROUTE, ["result", "workers", 0, "worker"], DELETE), "route", "$.result.workers[0]"),
    ("request", {"op": "query", "layout": "f", "items": [[0, 0]], "epoch": -1}, None, "$.epoch"),
    ("request", {"op": "list", "layout": "f", "minVersion": "3"}, None, "$.minVersion"),
    ("event", {"event": "route", "version": 3, "layout": "f"}, None, "$"),
]


@pytest.mark.parametrize("kind,doc,op,path", REJECTED, ids=[f"{k}-{i}" for i, (k, *_rest) in enumerate(REJECTED)])
def test_rejected(kind, doc, op, path):
    with pytest.raises(ValueError) as raised:
        validate(kind, doc, op=op)
    message = str(raised.value)
    assert f"at {path}:" in message or f"at {path}[" in message or f"at {path}." in message, message


def test_stats_rejections():
    stats = {"uptimeSeconds": 1, "requests": {"ping": 1, "unknown": 2}, "errors": {"busy": 1}, "inFlight": 0,
             "queued": 0, "workers": {"threads": 2, "busy": 0},
             "latencyMicros": {"ping": {"p50": 1, "p90": 1, "p99": 1, "max": 1, "count": 1}},
             "itemsPrepared": 0, "layouts": {"count": 0, "bytes": 0}, "eventsPublished": 0, "subscribers": 0,
             "authFailures": 0}
    validate("stats", stats)
    # A single daemon with a journal adds `journal` (PROTOCOL.md §8); `lastError` only while it cannot write.
    with_journal = {**stats, "journal": {
        "url": "sqlite:data/layoutd.db", "durability": "sync", "writable": True, "bytes": 4096, "commits": 2,
        "records": 3, "errors": 0, "keys": 1, "commitMicros": {"p50": 90, "p90": 120, "p99": 120, "max": 120, "count": 2},
        "restoring": 0, "restored": 1, "restoredItems": 10, "restoreMicros": 800, "lost": 0, "evictions": 0}}
    validate("stats", with_journal)
    validate("stats", changed(changed(with_journal, ["journal", "writable"], False), ["journal", "lastError"], "disk full"))
    # A worker's own stats with a direct endpoint add `cluster.direct` (PROTOCOL.md §8 and §11).
    counts = {"reads": 12, "moved": 3, "movedBy": {"notKept": 1, "epoch": 1, "fenced": 0, "lease": 1, "namespace": 0},
              "behind": 1, "readOnly": 2, "leaseExpiries": 1, "leaseRevocations": 0}
    worker = {**stats, "cluster": {"role": "worker", "id": "w0", "broker": "tcp://127.0.0.1:5560", "connected": True,
                                   "direct": {"endpoint": "tcp://127.0.0.1:5570", "leaseHolds": True, **counts}}}
    validate("stats", worker)
    validate("stats", changed(worker, ["cluster", "direct"], DELETE))  # a worker without a direct endpoint
    for bad, path in [
        (changed(stats, ["requests", "render"], 1), "$.requests"),
        (changed(stats, ["errors", "oops"], 1), "$.errors"),
        (changed(stats, ["inFlight"], -1), "$.inFlight"),
        (changed(stats, ["workers", "idle"], 1), "$.workers"),
        (changed(stats, ["latencyMicros", "ping", "p95"], 1), "$.latencyMicros.ping"),
        (changed(stats, ["memory"], 1), "$"),
        (changed(stats, ["authFailures"], DELETE), "$"),
        (changed(stats, ["cluster"], {"role": "observer"}), "$.cluster"),
        (changed(with_journal, ["journal", "durability"], "fast"), "$.journal.durability"),
        (changed(with_journal, ["journal", "writable"], 1), "$.journal.writable"),
        (changed(with_journal, ["journal", "restoring"], -1), "$.journal.restoring"),
        (changed(with_journal, ["journal", "commitMicros", "p95"], 1), "$.journal.commitMicros"),
        (changed(with_journal, ["journal", "evictions"], DELETE), "$.journal"),
        (changed(with_journal, ["journal", "size"], 1), "$.journal"),
        (changed(worker, ["cluster", "direct", "leaseHolds"], DELETE), "$.cluster"),
        (changed(worker, ["cluster", "direct", "queries"], 1), "$.cluster"),
        (changed(worker, ["cluster", "direct", "movedBy", "someday"], 1), "$.cluster"),
        (changed(worker, ["cluster", "direct", "behind"], -1), "$.cluster"),
    ]:
        with pytest.raises(ValueError) as raised:
            validate("stats", bad)
        assert f"at {path}" in str(raised.value), str(raised.value)


def test_accepted_edge_cases():
    """What the protocol allows that a hasty schema would not."""
    for request_id in ("r", 7, 1.5, -3, None):
        validate("request", {"v": 1, "id": request_id, "op": "ping"})
    validate("request", {"op": "ping", "futureField": {"anything": True}})  # unknown top-level fields are ignored
    validate("request", {"v": 1.0, "op": "ping"})
    validate("request", {**LAYOUT, "spec": {"type": "waterfall", "columns": 3.0, "columnWidth": None}})  # 3.0 is an integer
    validate("request", {**LAYOUT, "spec": {"type": "justified", "maxNumRows": None, "forceAspectRatio": False,
                                           "fullWidthBreakoutRowCadence": 2, "boxSpacing": {"vertical": 4}}})
    validate("request", {**LAYOUT, "sections": [{"ids": [1, "b", -9223372036854775808]}, {"count": 0, "header": None},
                                               {"heights": [1, None], "spans": [True, None]},
                                               {"items": [{}, {"span": True}], "ids": ["a", "b"]}]})
    validate("request", {**LAYOUT, "layoutDirection": None, "contentInsets": 4})
    validate("request", {"op": "query", "layout": "f", "supplementary": {"kind": "sectionBackground"}, "format": "columns"})
    validate("request", {"op": "query", "layout": "f", "rect": {"x": -5, "y": 0, "width": 0, "height": 0},
                         "pin": {}, "dynamics": {"scrollDelta": -20, "touch": {"x": 1, "y": 2}, "resistance": None}})
    validate("reply", {"v": 1, "id": "1.50", "ok": True, "result": {"layouts": []}})
    validate("reply", {"v": 1, "id": None, "ok": False, "error": {"code": "version_conflict", "message": "m"}})
    validate("reply", {"v": 1, "id": None, "ok": False, "error": {"code": "too_large", "message": "m", "path": "sections[3].count"}})
    validate_ref("common.schema.json#/$defs/counts", {"sections": 1, "items": 20, "elements": 20, "widowCount": 0, "hiddenItems": 14})


def test_misuse_of_validate():
    with pytest.raises(ValueError, match="unknown kind"):
        validate("replies", {})
    with pytest.raises(ValueError, match="unknown op"):
        validate("reply", PING, op="render")
    with pytest.raises(ValueError, match="op="):
        validate("event", EVENT, op="ping")
    with pytest.raises(ValueError, match="disagrees"):
        validate("reply", PING, op="ping", request={"op": "list"})
