"""The checker of issue 14's invariants over a recorded history (see scripts/faults.py):

1. versions answered for a key never go backwards: a request sent after a reply at version v answers >= v;
2. no acknowledged change is lost: the final version is >= the last acknowledged one, and every state read
   (final one included) equals the replay, through a reference daemon, of the key's acknowledged changes in
   version order, each change answered `unavailable` or timed out taken as applied or not, consistently;
3. a version never names two states: two reads of one rect at one version have the same digest;
4. `unknown_layout` only after a `drop` the client sent, or an `invalidated` event (lost, evicted) for it;
5. no stale read (issue 25's direct reads): a read answered ok, directly by a worker or through the broker,
   never answers a version older than a change acknowledged (to any client) before the read was sent, nor
   older than a version that client read before it sent it; and its frames are the reference's at that
   version (a direct read is the one replayed for its version and rect, every other read of them must match
   it: invariants 2 and 3, reported under 5 as well when a direct read is involved).
"""
import json
import sys
from collections import defaultdict

from .client import digest_of, strip

GONE = "gone"
MAX_CHAINS = 64


def _canon(body):
    return json.dumps({k: v for k, v in body.items() if k != "ifVersion"}, sort_keys=True)


class Result:
    def __init__(self):
        self.violations = []
        self.lost = 0
        self.rolled_back = 0
        self.stale = 0           # reads older than an acknowledged change or the client's own earlier read
        self.applied = 0         # indeterminate changes the history shows were applied
        self.not_applied = 0

    def add(self, kind, key, message, records=(), **extra):
        v = {"invariant": kind, "key": key, "message": message}
        if records:
            v["history"] = [r.brief() for r in records]
        v.update(extra)
        self.violations.append(v)


class Checker:
    def __init__(self, reference):
        self.reference = reference
        self.replays = 0

    def check(self, records, events):
        result = Result()
        by_key = defaultdict(list)
        for r in records:
            if r.key:
                by_key[r.key].append(r)
        events_by_key = defaultdict(list)
        for e in events:
            if e.get("layout"):
                events_by_key[e["layout"]].append(e)
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
        for key in sorted(by_key):
            recs = sorted(by_key[key], key=lambda r: r.received)
            self._monotonic(key, recs, result)
            self._one_state_per_version(key, recs, result)
            self._unknown_only_after_loss(key, recs, events_by_key[key], result)
            self._no_stale_read(key, recs, result)
            self._no_lost_change(key, recs, events_by_key[key], result)
        return result

    # 1
    @staticmethod
    def _monotonic(key, recs, result):
        versioned = [r for r in recs if r.outcome == "ok" and r.version is not None]
        done = sorted(versioned, key=lambda r: r.received)
        j, best = 0, None
        for r in sorted(versioned, key=lambda r: r.sent):
            while j < len(done) and done[j].received < r.sent:
                if best is None or done[j].version > best.version:
                    best = done[j]
                j += 1
            if best is not None and r.version < best.version:
                result.rolled_back += 1
                result.add("1-monotonic", key, f"{r.op} sent after a reply at version {best.version} answered "
                           f"version {r.version}", [best, r])

    # 5
    @staticmethod
    def _no_stale_read(key, recs, result):
        acked = sorted((r for r in recs if r.is_change and r.outcome == "ok" and r.version is not None),
                       key=lambda r: r.received)
        reads = [r for r in recs if r.op == "query" and r.outcome == "ok" and r.version is not None]
        done = sorted(reads, key=lambda r: r.received)
        i = j = 0
        best, own = None, {}
        for r in sorted(reads, key=lambda r: r.sent):
            while i < len(acked) and acked[i].received < r.sent:
                if best is None or acked[i].version > best.version:
                    best = acked[i]
                i += 1
            while j < len(done) and done[j].received < r.sent:
                d = done[j]
                if d.client not in own or d.version > own[d.client].version:
                    own[d.client] = d
                j += 1
            how = "directly" if r.direct else "through the broker"
            if best is not None and r.version < best.version:
                result.stale += 1
                result.add("5-no-stale-read", key, f"a read answered {how} at version {r.version}, sent after "
                           f"{best.client}'s {best.op} was acknowledged at version {best.version}", [best, r])
            elif r.client in own and r.version < own[r.client].version:
                result.stale += 1
                result.add("5-no-stale-read", key, f"a read answered {how} at version {r.version}, sent after "
                           f"the same client read version {own[r.client].version}", [own[r.client], r])

    # 3
    @staticmethod
    def _one_state_per_version(key, recs, result):
        seen = {}
        for r in recs:
            if r.op != "query" or r.outcome != "ok":
                continue
            at = (r.version, json.dumps(r.body.get("rect"), sort_keys=True))
            if at in seen and seen[at].digest != r.digest:
                result.add("3-one-state-per-version", key, f"two reads at version {r.version} of the same rect "
                           f"returned different frames", [seen[at], r])
                if r.direct or seen[at].direct:
                    result.stale += 1
                    result.add("5-no-stale-read", key, f"a direct read at version {r.version} returned frames "
                               f"another read of that version and rect did not", [seen[at], r])
            seen.setdefault(at, r)

    # 4
    @staticmethod
    def _unknown_only_after_loss(key, recs, events, result):
        prepares = [r for r in recs if r.op == "prepare" and r.outcome == "ok"]
        for r in recs:
            if r.outcome != "unknown_layout":
                continue
            before = [p for p in prepares if p.received < r.sent]
            if not before:
                continue   # never kept when it was sent
            last = max(before, key=lambda p: p.received)
            dropped = any(d.op == "drop" and last.sent < d.sent < r.received for d in recs)
            published = any(e.get("event") == "invalidated" and e.get("reason") in ("lost", "evicted")
                            and (e.get("version") or 0) > (last.version or 0) for e in events)
            if not (dropped or published):
                result.add("4-unknown-only-after-loss", key, "answered unknown_layout without a drop sent or an "
                           "invalidated event (lost/evicted) for it", [last, r])

    # 2
    def _no_lost_change(self, key, recs, events, result):
        slots = defaultdict(lambda: {"acked": [], "indet": [], "gone": []})
        floating = []
        for r in recs:
            if not r.is_change:
                continue
            if r.outcome == "ok":
                if r.op == "bounds" and not r.invalidated:
                    continue
                if r.version is None:
                    continue
                slots[r.version]["acked"].append(r)
                if r.if_version is not None and r.version != r.if_version + 1:
                    result.add("2-no-lost-change", key, f"acknowledged at version {r.version} with ifVersion "
                               f"{r.if_version}", [r])
            elif r.indeterminate:
                base = r.if_version if r.if_version is not None else r.base
                if base is None:
                    floating.append(r)
                else:
                    slots[base + 1]["indet"].append(r)
        for e in events:
            if e.get("event") == "invalidated" and e.get("reason") in ("lost", "evicted") and e.get("version"):
                slots[e["version"]]["gone"].append(e)
        for v in sorted(slots):
            acked = slots[v]["acked"]
            if len(acked) > 1:
                result.lost += len(acked) - 1
                result.add("2-no-lost-change", key, f"version {v} was acknowledged for {len(acked)} different "
                           f"changes: all but the last were lost", acked)

        def options(v):
            s = slots.get(v)
            if s is None:
                return list(floating)
            if s["acked"]:
                return [s["acked"][-1]]
            opts, seen = [], set()
            for r in s["indet"]:
                c = _canon(r.body)
                if c not in seen:
                    seen.add(c)
                    opts.append(r)
            if not opts and s["gone"]:
                return [GONE]
            return opts or list(floating)

        def chains(v):
            out = []

            def walk(v, suffix):
                if len(out) >= MAX_CHAINS or v < 1:
                    return
                opts = options(v)
                if len(opts) > 1:
                    # Try the likeliest first: below a change, the one sent just before it (a pipelined
                    # ifVersion chain); at the top, the latest sent (older attempts were read as not applied).
                    if suffix and suffix[0] is not GONE:
                        after = suffix[0].sent
                        opts = sorted(opts, key=lambda o: (o.sent > after, abs(after - o.sent)))
                    else:
                        opts = sorted(opts, key=lambda o: -o.sent)
                for op in opts:
                    if op is GONE or op.op == "drop":
                        continue
                    if op.op == "prepare":
                        out.append([op] + suffix)
                    else:
                        walk(v - 1, [op] + suffix)
            walk(v, [])
            return out

        # Every state read, by version and rect.
        observed = defaultdict(dict)
        first_read = {}
        for r in recs:
            if r.op == "query" and r.outcome == "ok" and r.version is not None:
                rect = json.dumps(r.body.get("rect"), sort_keys=True)
                if rect not in observed[r.version] or (r.direct and not observed[r.version][rect].direct):
                    observed[r.version][rect] = r     # a direct read, if any, is the one replayed
                first_read.setdefault((r.version, rect), r)
        explained = set()
        for v in sorted(observed, reverse=True):
            if v in explained:
                continue
            candidates = chains(v)
            if not candidates:
                explained.add(v)
                near = [r for r in recs if r.is_change and (r.version == v or r.if_version == v - 1)]
                result.add("2-no-lost-change", key, f"a read answered version {v}, which no acknowledged or "
                           f"indeterminate change of this history gives", near + [next(iter(observed[v].values()))])
                continue
            verdict = None
            for chain in candidates:
                start = v - len(chain) + 1
                wanted = {u: observed[u] for u in range(start, v + 1) if u in observed and u not in explained}
                mismatch = self._replay(key, chain, start, wanted)
                if mismatch is None:
                    verdict = (chain, start, None)
                    break
                if verdict is None:
                    verdict = (chain, start, mismatch)
            chain, start, mismatch = verdict
            for u in range(start, v + 1):
                explained.add(u)
            if mismatch is None:
                for i, op in enumerate(chain):
                    if op.indeterminate:
                        result.applied += 1
                continue
            at, rect, got, message = mismatch
            seen_rec = observed[at][rect] if at in observed and rect in observed[at] else None
            acked_in = [op for op in chain if op.outcome == "ok"]
            result.lost += 1
            result.add("2-no-lost-change", key, f"the state read at version {at} is not the replay of the "
                       f"acknowledged changes from the prepare at version {start}: {message}",
                       ([seen_rec] if seen_rec else []) + acked_in[-6:],
                       chain=[f"v{start + i}:{op.op}:{op.outcome}" for i, op in enumerate(chain)][-20:])
            if seen_rec is not None and seen_rec.direct:
                result.stale += 1
                result.add("5-no-stale-read", key, f"a direct read at version {at} is not the reference's state "
                           f"at that version: {message}", [seen_rec])

        # The final read against the last acknowledged change.
        finals = [r for r in recs if r.phase == "final" and r.op == "query"]
        answered = [r for r in finals if r.outcome in ("ok", "unknown_layout")]
        finals = answered or finals
        acked = [r for r in recs if r.is_change and r.outcome == "ok" and r.version is not None
                 and not (r.op == "bounds" and not r.invalidated)]
        if not finals or not acked:
            return
        final = max(finals, key=lambda r: r.received)
        last = max(acked, key=lambda r: r.version)
        if final.outcome == "ok":
            if final.version < last.version:
                gone = [r for r in acked if r.version > final.version]
                result.lost += len(gone)
                what = (f"the key was dropped (acknowledged at version {last.version}) but answers again, at version "
                        f"{final.version}" if last.op == "drop" else
                        f"the final read answered version {final.version}, below the last acknowledged version "
                        f"{last.version}")
                result.add("2-no-lost-change", key, f"{what}: {len(gone)} acknowledged change(s) lost", [last, final])
        elif final.outcome == "unknown_layout":
            lost_events = [e for e in events if e.get("event") == "invalidated"
                           and e.get("reason") in ("lost", "evicted") and (e.get("version") or 0) > last.version]
            if last.op == "drop":
                return
            since = [r for r in acked if r.version <= last.version]
            prepares = [r for r in since if r.op == "prepare"]
            gen = [r for r in since if not prepares or r.version >= max(p.version for p in prepares)]
            result.lost += len(gen)
            why = (f"the broker published invalidated/{lost_events[0].get('reason')} at version "
                   f"{lost_events[0].get('version')} although it journals every key's recipe"
                   if lost_events else "without a drop or a lost event")
            result.add("2-no-lost-change", key, f"the final read answered unknown_layout ({why}): "
                       f"{len(gen)} acknowledged change(s) since the key's last prepare are gone", [last, final])
        else:
            result.add("2-no-lost-change", key, f"the final read of the key answered {final.outcome}", [final])

    def _replay(self, key, chain, start, wanted):
        """Replays `chain` (slot `start` first) on the reference daemon; None when every wanted state
        matches, else (version, rect, digest, message) of the first that does not."""
        self.replays += 1
        ref_key = f"replay-{self.replays}"
        try:
            for i, op in enumerate(chain):
                body = strip(op.body)
                body.pop("ifVersion", None)
                body["layout"] = ref_key
                reply = self.reference.call(body)
                if not reply.get("ok"):
                    return (start + i, None, None, f"the reference daemon answers {op.op} at version {start + i} "
                            f"{reply.get('error', {}).get('code')} ({reply.get('error', {}).get('message')})")
                if op.op == "bounds" and not reply["result"].get("invalidated"):
                    return (start + i, None, None, f"the bounds at version {start + i} changes nothing on replay")
                for rect, rec in wanted.get(start + i, {}).items():
                    q = self.reference.call({"op": "query", "layout": ref_key, "format": "columns",
                                             "rect": json.loads(rect)})
                    got = digest_of(q.get("result", {}).get("attributes")) if q.get("ok") else None
                    if got != rec.digest:
                        return (start + i, rect, got, f"frames differ (read {rec.digest[:12]}, replay "
                                f"{(got or 'none')[:12]})")
            return None
        finally:
            self.reference.call({"op": "drop", "layout": ref_key})
