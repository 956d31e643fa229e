"""The subscriber soak (issue 34), short: ``subscriber_soak.py`` for 20 seconds and at least one stop and
start of each worker. ``python3 clients/python/tests/subscriber_soak.py --minutes 10`` runs it in full."""

from __future__ import annotations

from pathlib import Path

from subscriber_soak import soak


def test_a_subscriber_misses_nothing_on_a_cluster_under_moves(tmp_path: Path) -> None:
    report = soak(tmp_path, 20.0, keys=6, pause=2.0)
    assert report.problems == [], report.figures()
    assert report.acknowledged > 0 and report.queries > 0
    assert report.stops >= 1 and report.starts >= 1  # keys moved, and moved back
    assert report.route_events > 0  # the route table's changes reached the subscriber (and were skipped)
    assert report.events >= report.acknowledged
