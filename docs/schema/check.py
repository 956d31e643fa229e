"""Validate layoutd protocol messages against the JSON Schemas in this directory.

    from check import validate
    validate("request", {"v": 1, "id": 1, "op": "ping"})
    validate("reply", reply)                        # any reply; the result must match one op's shape
    validate("reply", reply, op="query")            # the reply to a query
    validate("reply", reply, request=request)       # exact: op, format, return and pin of that request
    validate("event", body)                         # an events-socket body
    validate("stats", answer)                       # the stats socket's answer

Each call raises ValueError naming the JSON path of the failing member on a mismatch. Schemas are
loaded once, from this directory, and their `$ref`s resolved locally through a referencing.Registry
(nothing is fetched). Needs only jsonschema 4.18+ (with referencing).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

__all__ = ["validate", "validate_ref", "KINDS", "OPS", "BASE_URI", "SCHEMA_DIR"]

SCHEMA_DIR = Path(__file__).resolve().parent
BASE_URI = "https://layoutd.invalid/schema/v1/"
KINDS = {
    "request": "request.schema.json",
    "reply": "reply.schema.json",
    "event": "event.schema.json",
    "stats": "stats.schema.json",
}
OPS = ("ping", "layout", "prepare", "query", "bounds", "update", "diff", "drop", "list", "route")

_lock = threading.Lock()
_registry: Registry | None = None
_validators: dict[str, jsonschema.Draft202012Validator] = {}


def _load() -> Registry:
    global _registry
    with _lock:
        if _registry is None:
            resources = []
            for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
                contents = json.loads(path.read_text(encoding="utf-8"))
                jsonschema.Draft202012Validator.check_schema(contents)
                expected = BASE_URI + path.name
                if contents.get("$id") != expected:
                    raise RuntimeError(f"{path.name}: $id is {contents.get('$id')!r}, expected {expected!r}")
                resources.append((expected, Resource.from_contents(contents, default_specification=DRAFT202012)))
            _registry = Registry().with_resources(resources).crawl()
        return _registry


def _validator(schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    key = json.dumps(schema, sort_keys=True)
    validator = _validators.get(key)
    if validator is None:
        validator = jsonschema.Draft202012Validator(schema, registry=_load())
        _validators[key] = validator
    return validator


def _ref(ref: str) -> dict[str, Any]:
    return {"$ref": ref if ref.startswith("https:") else BASE_URI + ref}


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _deepest(error: ValidationError) -> ValidationError:
    """The most telling error under oneOf/anyOf: of the alternatives, the one that matched furthest into
    the document (its errors lie deepest), then that alternative's best error, and so on down."""
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0] if sub.relative_schema_path else None, []).append(sub)
        errors = max(branches.values(), key=lambda errs: (max(len(e.absolute_path) for e in errs), -len(errs)))
        error = best_match(errors)
    return error


def _check(what: str, schema: dict[str, Any], obj: Any) -> None:
    error = best_match(_validator(schema).iter_errors(obj))
    if error is None:
        return
    deepest = _deepest(error)
    where = deepest.json_path
    message = f"{what}: at {where}: {_short(deepest.message)}"
    if deepest is not error:
        message += f" (while matching {error.json_path}: {_short(error.message, 160)})"
    raise ValueError(message)


def _reply_hint(request: dict[str, Any]) -> dict[str, Any] | None:
    """What a success reply to `request` must look like beyond its op's result shape: attributes present
    or absent (`return`), in the requested `format`, with zIndex exactly where `pin` puts it."""
    op = request.get("op")
    if op not in ("layout", "prepare", "query"):
        return None
    fmt = request.get("format") or "objects"
    if op == "query":
        listed = True
    else:
        ret = request.get("return")
        if ret is None:
            ret = "all" if op == "layout" else "none"
        listed = ret != "none"
    if not listed:
        result: dict[str, Any] = {"not": {"required": ["attributes"]}}
    else:
        pin = request.get("pin") if op == "query" and request.get("rect") is not None else None
        pin = pin if isinstance(pin, dict) else {}
        headers, footers = pin.get("headers") is True, pin.get("footers") is True
        if fmt == "columns":
            attributes = {
                "allOf": [_ref("common.schema.json#/$defs/attributesColumns")],
                **({"required": ["zIndex"]} if headers or footers else {"properties": {"zIndex": False}}),
            }
        elif fmt == "binary":
            n = 8 if headers or footers else 7
            attributes = {
                "allOf": [_ref("common.schema.json#/$defs/attributesBinary")],
                "properties": {"columns": {"minItems": n, "maxItems": n}},
            }
        else:
            def pinned(kind: str, on: bool) -> dict[str, Any]:
                return {
                    "if": {"properties": {"kind": {"const": kind}}},
                    "then": {"required": ["zIndex"]} if on else {"properties": {"zIndex": False}},
                }

            attributes = {
                "allOf": [_ref("common.schema.json#/$defs/attributesObjects")],
                "items": {"allOf": [pinned("header", headers), pinned("footer", footers)]},
            }
        result = {"required": ["attributes"], "properties": {"attributes": attributes}}
    return {"if": {"properties": {"ok": {"const": True}}}, "then": {"properties": {"result": result}}}


def validate(kind: str, obj: Any, *, op: str | None = None, request: dict[str, Any] | None = None) -> None:
    """Raises ValueError unless `obj` (a decoded JSON body) matches the schema of `kind`.

    kind: "request", "reply", "event" or "stats".
    op: for a request or reply, the op it is (or answers); a reply alone does not name its op, so
        without it the result must match exactly one op's result shape.
    request: for a reply, the request it answers (implies op): the reply must then also have, or not
        have, attributes as that request's `return`, in its `format`, with zIndex as its `pin` asks.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    if request is not None:
        if kind != "reply":
            raise ValueError("request= is a hint for kind 'reply' only")
        if not isinstance(request, dict):
            raise ValueError("request= must be the decoded request object")
        request_op = request.get("op")
        if op is not None and op != request_op:
            raise ValueError(f"op={op!r} disagrees with the request's op {request_op!r}")
        op = request_op
    if op is not None:
        if kind not in ("request", "reply"):
            raise ValueError(f"op= is a hint for requests and replies, not {kind!r}")
        if op not in OPS:
            raise ValueError(f"unknown op {op!r}; one of {', '.join(OPS)}")
    label = kind if op is None else f"{kind} ({op})"
    if kind == "request":
        schema = _ref(KINDS[kind]) if op is None else {"allOf": [_ref(KINDS[kind]), _ref(f"request.schema.json#/$defs/{op}")]}
    elif kind == "reply" and op is not None:
        schema = _ref(f"reply.schema.json#/$defs/{op}Reply")
        hint = _reply_hint(request) if request is not None else None
        if hint is not None:
            schema = {"allOf": [schema, hint]}
    else:
        schema = _ref(KINDS[kind])
        if kind == "reply":
            try:
                _check(label, schema, obj)
            except ValueError:
                # A result that matches no op's shape: explain it against the op it looks most like.
                guess = _guess_op(obj)
                if guess is None:
                    raise
                _check(f"reply (result matches no op's shape; checked as the result of {guess})", _ref(f"reply.schema.json#/$defs/{guess}Reply"), obj)
                raise
            return
    _check(label, schema, obj)


def _guess_op(reply: Any) -> str | None:
    """The op whose result a failing success reply looks most like, for a readable error."""
    if not isinstance(reply, dict) or reply.get("ok") is not True or not isinstance(reply.get("result"), dict):
        return None
    result = reply["result"]
    if "uptimeSeconds" in result:
        return "ping"
    if "invalidated" in result:
        return "bounds"
    if {"deletes", "inserts", "moves", "reloads", "sections"} & result.keys():
        return "update"
    if "counts" in result:
        return "prepare" if "layout" in result or "version" in result else "layout"
    if "attributes" in result:
        return "query"
    if "layouts" in result:
        return "list" if any(isinstance(entry, dict) for entry in result.get("layouts") or []) or "version" not in result else "ping"
    if "workers" in result or "keys" in result:
        return "route"
    if "layout" in result:
        return "drop"
    return None


def validate_ref(ref: str, obj: Any) -> None:
    """Validates `obj` against one definition, e.g. "common.schema.json#/$defs/section" (for fragments
    of documents, such as PROTOCOL.md's bare examples). Raises ValueError like `validate`."""
    _check(ref, _ref(ref), obj)


if __name__ == "__main__":
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="Validate layoutd JSON documents (one per file, or - for stdin).")
    parser.add_argument("kind", choices=sorted(KINDS))
    parser.add_argument("files", nargs="+")
    parser.add_argument("--op", choices=OPS)
    args = parser.parse_args()
    status = 0
    for name in args.files:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        try:
            validate(args.kind, json.loads(text), op=args.op)
            print(f"{name}: ok")
        except ValueError as error:
            print(f"{name}: {error}")
            status = 1
    sys.exit(status)
