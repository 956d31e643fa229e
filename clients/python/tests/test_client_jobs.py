"""Typed job builders (layoutd.jobs): their members are docs/schema's, and a job written with them is the
same request as the dict, accepted by the daemon for every layout."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from typing import Any

from layoutd import Client, jobs
from layoutd_testkit import SCHEMA_DIR, Server

COMMON = json.loads((SCHEMA_DIR / "common.schema.json").read_text())["$defs"]


def schema_members(name: str) -> set[str]:
    members = set(COMMON["commonParameters"]["properties"]) | set(COMMON[f"{name}Parameters"]["properties"])
    return members - {"type"}


def test_the_typed_dicts_are_the_schemas() -> None:
    assert set(jobs.LAYOUT_TYPES) == set(COMMON["layoutType"]["enum"])
    for name in jobs.LAYOUT_TYPES:
        title = name[0].upper() + name[1:]
        params: Any = getattr(jobs, f"{title}Params")
        spec: Any = getattr(jobs, f"{title}Spec")
        assert set(params.__annotations__) == schema_members(name), name
        assert set(typing.get_type_hints(spec)) == schema_members(name) | {"type"}, name
        assert spec.__required_keys__ == {"type"} and not params.__required_keys__
    assert set(jobs.Section.__annotations__) == set(COMMON["section"]["properties"])
    assert set(jobs.Item.__annotations__) == set(COMMON["itemObject"]["properties"])


def test_typed_jobs_prepare_every_layout(single_server: Server, make_client: Callable[..., Client], key: str) -> None:
    client = make_client(single_server.front)
    specs: list[jobs.Spec] = [
        jobs.ColumnFlowSpec(type="columnFlow", minColumnWidth=100, cellHeight=50, margins={"left": 4, "right": 4}),
        jobs.MosaicSpec(type="mosaic", spacing=2),
        jobs.WaterfallSpec(type="waterfall", columns=3, columnSpacing=4),
        jobs.ListSpec(type="list", itemHeight=44, sectionInsets=8),
        jobs.ColumnsSpec(type="columns", columnCount=2, itemHeight=40),
        jobs.FlowSpec(type="flow", interitemSpacing=4, defaultItemSize={"width": 50, "height": 50}),
        jobs.JustifiedSpec(type="justified", targetRowHeight=120),
    ]
    sections = [jobs.Section(count=2, params=jobs.ListParams(header=20)), jobs.Section(items=[jobs.Item(id="a")])]
    for spec in specs:
        name = f"{key}-{spec['type']}"
        typed = client.prepare(name, bounds=(375, 667), spec=spec, sections=sections[1:])
        plain = client.layout(bounds=(375, 667), spec=dict(spec), sections=[{"items": [{"id": "a"}]}])
        assert typed.version == 1 and typed.counts.items == 1 == plain.counts.items, spec
    listed = client.prepare(f"{key}-sections", bounds=(375, 667), spec=specs[3], sections=sections)
    assert listed.counts.items == 3
