"""The checker's own check (scripts/faults --self-check): a fabricated history it must find fault with."""
from .checker import Checker
from .client import FULL_RECT, digest_of


def self_check(reference):
    """Feeds a fabricated history with a rolled-back version and lost acknowledged changes (and a clean
    key) to the checker; returns a list of failures of the checker (empty: it caught everything)."""
    from .client import Record
    from .workload import KeyState
    import random

    rng = random.Random(7)
    clock = iter(range(1, 100000))
    records = []

    def rec(key, op, body, outcome="ok", version=None, digest=None, phase="load", base=None, invalidated=None,
            client="fab", direct=False):
        r = Record(client=client, key=key, op=op, body=dict(body, layout=key), sent=next(clock), base=base,
                   phase=phase, direct=direct, endpoint="tcp://fabricated:1" if direct else None)
        r.received = next(clock)
        r.outcome, r.version, r.digest, r.invalidated = outcome, version, digest, invalidated
        records.append(r)
        return r

    def truth(bodies):
        """The digest of the full rect after the bodies, from the reference itself."""
        name = f"truth-{next(clock)}"
        for b in bodies:
            reply = reference.call(dict({k: v for k, v in b.items() if k != "ifVersion"}, layout=name))
            assert reply.get("ok"), reply
        q = reference.call({"op": "query", "layout": name, "format": "columns", "rect": FULL_RECT})
        reference.call({"op": "drop", "layout": name})
        return digest_of(q["result"]["attributes"])

    query = {"op": "query", "format": "columns", "rect": FULL_RECT}
    for key in ("rolled", "silent", "clean", "staled", "forged", "ownback"):
        ks = KeyState(key, rng, kind="waterfall", items=30)
        ks.version = 0
        p, _ = ks.gen_prepare()
        ks.version = 1
        u1, m1 = ks.gen_update()
        ks.model, ks.version = m1, 2
        u2, m2 = ks.gen_update()
        d1, d2, d3 = truth([p]), truth([p, u1]), truth([p, u1, u2])
        rec(key, "prepare", p, version=1)
        rec(key, "query", query, version=1, digest=d1)
        rec(key, "update", u1, version=2)
        rec(key, "update", u2, version=3)
        if key == "rolled":     # acknowledged at 3, then read at 2: rolled back, the change at 3 lost
            rec(key, "query", query, version=3, digest=d3)
            rec(key, "query", query, version=2, digest=d2, phase="final")
        elif key == "silent":   # the version stays, the frames lose the change at 3
            rec(key, "query", query, version=3, digest=d2, phase="final")
        elif key == "staled":   # a worker answers a direct read from its copy at 2, after 3 was acknowledged
            rec(key, "query", dict(query, epoch=5, minVersion=1), version=2, digest=d2, client="reader",
                direct=True)
            rec(key, "query", query, version=3, digest=d3, phase="final")
        elif key == "forged":   # a direct read names version 3 but returns the frames of 2
            rec(key, "query", dict(query, epoch=5, minVersion=1), version=3, digest=d2, client="reader",
                direct=True)
            rec(key, "query", query, version=3, digest=d3, phase="final")
        elif key == "ownback":  # a client reads 3 directly (an indeterminate change's), then 2 from another copy
            records[-1].outcome, records[-1].version = "unavailable", None
            rec(key, "query", dict(query, epoch=5, minVersion=2), version=3, digest=d3, client="reader",
                direct=True)
            rec(key, "query", dict(query, epoch=4, minVersion=2), version=2, digest=d2, client="reader",
                direct=True)
            rec(key, "query", query, version=3, digest=d3, phase="final")
        else:
            ks.model, ks.version = m2, 3
            u3, _ = ks.gen_update()
            rec(key, "update", dict(u3, ifVersion=3), outcome="unavailable", base=3)   # indeterminate, applied
            d4 = truth([p, u1, u2, u3])
            rec(key, "query", dict(query, epoch=5, minVersion=3), version=4, digest=d4, client="reader",
                direct=True)
            rec(key, "query", query, version=4, digest=d4, phase="final")
    rec("vanished", "prepare", {"op": "prepare", "bounds": {"width": 375, "height": 800},
                                "spec": {"type": "list"}, "sections": [{"count": 3}]}, version=1)
    rec("vanished", "query", query, outcome="unknown_layout", phase="final")

    result = Checker(reference).check(records, [])
    failures = []
    kinds = {(v["invariant"], v["key"]) for v in result.violations}
    if ("1-monotonic", "rolled") not in kinds:
        failures.append("the rolled-back version (key rolled) was not reported")
    if ("2-no-lost-change", "rolled") not in kinds:
        failures.append("the lost acknowledged change (key rolled) was not reported")
    if ("2-no-lost-change", "silent") not in kinds:
        failures.append("the acknowledged change lost at the same version (key silent) was not reported")
    if ("4-unknown-only-after-loss", "vanished") not in kinds:
        failures.append("unknown_layout without a loss (key vanished) was not reported")
    for key, what in (("staled", "a direct read older than an acknowledged change"),
                      ("forged", "a direct read whose frames are not its version's"),
                      ("ownback", "a direct read older than the same client's earlier read")):
        if ("5-no-stale-read", key) not in kinds:
            failures.append(f"{what} (key {key}) was not reported as a stale read")
    if any(v["key"] == "clean" for v in result.violations):
        failures.append(f"the clean key was reported: {[v for v in result.violations if v['key'] == 'clean']}")
    if result.rolled_back < 1 or result.lost < 2 or result.stale < 3:
        failures.append(f"counts rolledBack {result.rolled_back}, lost {result.lost}, stale {result.stale}")
    return failures, result
