"""The mixed workload: each key has one writer, which keeps a model of the key's items to send valid
changes (most with ifVersion), and resolves every change it could not confirm by reading the key's version
before it goes on. Readers query any key. Bodies follow docs/PROTOCOL.md sections 4 and 5."""
import copy
import random
import threading
import time

from .client import FULL_RECT, DirectReader, Front

WIDTHS = [360, 375, 390, 414, 430]


class KeyState:
    def __init__(self, name, rng, kind=None, items=None):
        self.name = name
        self.rng = rng
        self.fixed_kind = kind
        self.next_id = 0
        self.version = None          # the version the writer believes current (None: never prepared)
        self.prepared = False        # ever acknowledged a prepare
        self.uncertain = False       # the last change's fate is unknown: read the version first
        self.pending = None          # (record, new model) of that change
        self.resync = False          # the model may be wrong: prepare again (ifVersion) before changing
        self.gone = False            # answered unknown_layout: prepare again
        self.model = self._new_content(kind, items)

    def _new_content(self, kind=None, items=None):
        rng = self.rng
        kind = kind or rng.choice(["list", "waterfall"])
        n = items or rng.randint(20, 200)
        sections = [[self._item() for _ in range(n)]]
        if kind == "list" and rng.random() < 0.4:
            sections.append([self._item() for _ in range(rng.randint(1, 30))])
        return {"kind": kind, "columns": rng.choice([2, 3]), "width": rng.choice(WIDTHS), "sections": sections}

    def _item(self):
        self.next_id += 1
        return [f"{self.name}-i{self.next_id}", self.rng.randint(20, 120)]

    @staticmethod
    def spec_of(model):
        if model["kind"] == "waterfall":
            return {"type": "waterfall", "columns": model["columns"], "cellPadding": 4, "interitemSpacing": 2}
        return {"type": "list", "itemHeight": 44, "spacing": 2, "header": 24, "sectionInsets": {"top": 4, "bottom": 4}}

    @staticmethod
    def sections_of(model):
        return [{"ids": [i[0] for i in s], "heights": [i[1] for i in s]} for s in model["sections"]]

    # Each generator returns (body, the model after the change).

    def gen_prepare(self, if_version="current"):
        m = self._new_content(self.fixed_kind or (self.model["kind"] if self.rng.random() < 0.7 else None))
        body = {"op": "prepare", "layout": self.name, "bounds": {"width": m["width"], "height": 800},
                "spec": self.spec_of(m), "sections": self.sections_of(m)}
        if if_version == "current":
            if_version = self.version if self.version is not None else 0
        if if_version is not None:
            body["ifVersion"] = if_version
        return body, m

    def gen_update(self, with_if=True):
        rng = self.rng
        m = copy.deepcopy(self.model)
        s = rng.randrange(len(m["sections"]))
        items = m["sections"][s]
        n = len(items)
        kinds = rng.sample(["delete", "insert", "move", "reload"], rng.randint(1, 3))
        if n > 230 and "delete" not in kinds:
            kinds.append("delete")
        updates, removed, placed = [], set(), []
        reloaded = {}
        if "delete" in kinds and n > 4:
            d = rng.randrange(n)
            removed.add(d)
            updates.append({"delete": [s, d]})
        if "reload" in kinds and n - len(removed) > 0:
            r = rng.choice([i for i in range(n) if i not in removed])
            h = rng.randint(20, 120)
            reloaded[r] = h
            updates.append({"reload": [s, r], "item": {"height": h}})
        move_src = None
        if "move" in kinds:
            free = [i for i in range(n) if i not in removed and i not in reloaded]
            if len(free) > 2:
                move_src = rng.choice(free)
                removed.add(move_src)
        new_item = self._item() if ("insert" in kinds or not updates and move_src is None) else None
        n_after = n - len(removed) + (1 if move_src is not None else 0) + (1 if new_item else 0)
        slots = rng.sample(range(n_after), (1 if move_src is not None else 0) + (1 if new_item else 0))
        if move_src is not None:
            to = slots.pop()
            updates.append({"move": [[s, move_src], [s, to]]})
            placed.append((to, list(items[move_src])))
        if new_item:
            at = slots.pop()
            updates.append({"insert": [s, at], "item": {"id": new_item[0], "height": new_item[1]}})
            placed.append((at, new_item))
        rng.shuffle(updates)
        after = []
        for i, item in enumerate(items):
            if i in removed:
                continue
            after.append([item[0], reloaded.get(i, item[1])])
        for at, item in sorted(placed):
            after.insert(at, item)
        m["sections"][s] = after
        body = {"op": "update", "layout": self.name, "updates": updates}
        if with_if:
            body["ifVersion"] = self.version
        return body, m

    def gen_diff(self):
        rng = self.rng
        m = copy.deepcopy(self.model)
        for s, items in enumerate(m["sections"]):
            if rng.random() < 0.5 and s > 0:
                continue
            for _ in range(rng.randint(0, 3)):
                if len(items) > 5:
                    items.pop(rng.randrange(len(items)))
            for _ in range(rng.randint(0, 3)):
                items.insert(rng.randint(0, len(items)), self._item())
            if len(items) > 2 and rng.random() < 0.6:
                a, b = rng.sample(range(len(items)), 2)
                items[a], items[b] = items[b], items[a]
            for _ in range(rng.randint(0, 2)):
                if items:
                    items[rng.randrange(len(items))][1] = rng.randint(20, 120)
        body = {"op": "diff", "layout": self.name, "sections": self.sections_of(m), "ifVersion": self.version}
        return body, m

    def gen_bounds(self):
        m = copy.deepcopy(self.model)
        m["width"] = self.rng.choice([w for w in WIDTHS if w != m["width"]])
        body = {"op": "bounds", "layout": self.name, "bounds": {"x": 0, "y": self.rng.randint(0, 500),
                                                                 "width": m["width"], "height": 800},
                "ifVersion": self.version}
        return body, m

    def gen_drop(self):
        return {"op": "drop", "layout": self.name, "ifVersion": self.version}, None


def query_body(key, rng=None):
    if rng is not None and rng.random() < 0.25:
        return {"op": "query", "layout": key, "format": "columns",
                "rect": {"x": 0, "y": rng.randint(0, 4000), "width": 1000, "height": rng.choice([400, 800])}}
    return {"op": "query", "layout": key, "format": "columns", "rect": FULL_RECT}


class KeyWriter:
    """Sends one key's changes through a Front and keeps its KeyState honest."""

    def __init__(self, front, rng, drops=True):
        self.front, self.rng, self.drops = front, rng, drops

    def step(self, ks, choice=None):
        """One request on `ks`; returns its Record."""
        if ks.uncertain:
            return self.resolve(ks)
        if ks.version is None or ks.gone or ks.resync:
            if ks.gone and ks.version is None:
                return self._change(ks, *ks.gen_prepare(if_version=None))
            return self._change(ks, *ks.gen_prepare())
        r = self.rng.random() if choice is None else None
        if choice == "update" or (r is not None and r < 0.50):
            return self._change(ks, *ks.gen_update(with_if=True))
        if r is not None and r < 0.58:
            return self._change(ks, *ks.gen_update(with_if=False))
        if r is not None and r < 0.70:
            return self._change(ks, *ks.gen_diff())
        if r is not None and r < 0.76:
            return self._change(ks, *ks.gen_bounds())
        if r is not None and r < 0.79:
            return self._change(ks, *ks.gen_prepare())
        if r is not None and r < 0.805 and self.drops:
            return self._change(ks, *ks.gen_drop())
        return self.front.call(query_body(ks.name, self.rng))

    def _change(self, ks, body, model):
        rec = self.front.call(body, base=ks.version)
        if rec.outcome == "ok":
            if rec.op == "drop":
                ks.version, ks.gone = rec.version, True
            else:
                ks.version, ks.model, ks.gone, ks.resync = rec.version, model, False, False
                if rec.op == "prepare":
                    ks.prepared = True
        elif rec.outcome in ("timeout", "unavailable", "internal"):
            ks.uncertain, ks.pending = True, (rec, model)
        elif rec.outcome == "busy":
            pass
        elif rec.outcome == "unknown_layout":
            ks.gone = True
            ks.version = None if rec.op != "prepare" else ks.version
        elif rec.outcome == "version_conflict":
            ks.uncertain, ks.pending = True, None
        else:   # invalid_update / invalid_request: the model is not the key's
            ks.resync = True
        return rec

    def resolve(self, ks):
        """Reads the key's version to settle a change whose fate is unknown."""
        rec = self.front.call(query_body(ks.name))
        pending = ks.pending
        if rec.outcome == "ok":
            v = rec.version
            ks.uncertain, ks.pending, ks.gone = False, None, False
            if pending and pending[0].base is not None and v == pending[0].base + 1 and pending[1] is not None:
                ks.version, ks.model = v, pending[1]       # applied (the writer is the key's only one)
                if pending[0].op == "prepare":
                    ks.prepared = True
            elif pending and pending[0].base is not None and v == pending[0].base:
                ks.version = v                             # not applied
            else:
                ks.version, ks.resync = v, True
        elif rec.outcome == "unknown_layout":
            ks.uncertain, ks.pending, ks.gone = False, None, True
            if pending and pending[0].op == "drop" and pending[0].base is not None:
                ks.version = pending[0].base + 1           # the drop was applied
            elif pending and pending[0].op == "prepare" and pending[0].if_version == 0:
                ks.version = 0                              # a first prepare that was not applied
            else:
                ks.version = None                           # lost: prepare without ifVersion
        return rec


class Load:
    """Writer threads (each owning some keys) and reader threads, until stopped or out of budget."""

    def __init__(self, ctx, endpoint, history, keys, seed, writers=3, readers=1, pace=0.01, budget=100000,
                 drops=True, direct_readers=0, direct_timeout=1.0):
        self.ctx, self.endpoint, self.history = ctx, endpoint, history
        self.keys = keys
        self.stopping = threading.Event()
        self.threads = []
        self.seed = seed
        self.pace = pace
        self.budget = budget
        self.drops = drops
        self.counts = [0] * (writers + readers + direct_readers)
        self.direct_timeout = direct_timeout
        groups = [keys[i::writers] for i in range(writers)]
        for i, group in enumerate(groups):
            self.threads.append(threading.Thread(target=self._writer, args=(i, group), name=f"writer-{i}", daemon=True))
        for j in range(readers):
            self.threads.append(threading.Thread(target=self._reader, args=(writers + j,), name=f"reader-{j}", daemon=True))
        for j in range(direct_readers):
            self.threads.append(threading.Thread(target=self._direct_reader, args=(writers + readers + j, j),
                                                 name=f"direct-{j}", daemon=True))
        self.errors = []

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def _writer(self, index, group):
        rng = random.Random(self.seed * 1000 + index)
        front = Front(self.ctx, self.endpoint, self.history, f"w{index}")
        writer = KeyWriter(front, rng, self.drops)
        try:
            while not self.stopping.is_set() and self.counts[index] < self.budget and group:
                ks = rng.choice(group)
                writer.step(ks)
                self.counts[index] += 1
                time.sleep(self.pace * rng.random() * 2)
        except Exception as e:   # reported as a harness error
            self.errors.append(repr(e))
        finally:
            front.close()

    def _reader(self, index):
        rng = random.Random(self.seed * 1000 + index)
        front = Front(self.ctx, self.endpoint, self.history, f"r{index}")
        try:
            while not self.stopping.is_set() and self.counts[index] < self.budget:
                ready = [k for k in self.keys if k.prepared]
                if ready:
                    front.call(query_body(rng.choice(ready).name, rng))
                    self.counts[index] += 1
                time.sleep(self.pace * rng.random() * 2)
        except Exception as e:
            self.errors.append(repr(e))
        finally:
            front.close()

    def _direct_reader(self, index, j):
        """Reads any prepared key, straight from its owner when the route table names one (DirectReader)."""
        rng = random.Random(self.seed * 1000 + index)
        reader = DirectReader(self.ctx, self.endpoint, self.history, f"d{j}", direct_timeout=self.direct_timeout)
        try:
            while not self.stopping.is_set() and self.counts[index] < self.budget:
                ready = [k for k in self.keys if k.prepared]
                if ready:
                    reader.read(query_body(rng.choice(ready).name, rng))
                    self.counts[index] += 1
                time.sleep(self.pace * rng.random())
        except Exception as e:
            self.errors.append(repr(e))
        finally:
            reader.close()

    def requests(self):
        return sum(self.counts)

    def wait_requests(self, n, timeout=30.0):
        deadline = time.monotonic() + timeout
        start = self.requests()
        while self.requests() - start < n and time.monotonic() < deadline and any(t.is_alive() for t in self.threads):
            time.sleep(0.02)

    def wait_prepared(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(k.prepared for k in self.keys):
                return True
            time.sleep(0.02)
        return False

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(30)


def ensure(writer, ks, kind, timeout=30.0):
    """Drives `ks` until a change of `kind` ("prepare" or "update") is acknowledged (or `timeout`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if kind == "prepare" and ks.prepared and not ks.uncertain and not ks.gone and not ks.resync:
            return True
        rec = writer.step(ks, choice=None if kind == "prepare" else "update")
        if kind == "update" and rec.op == "update" and rec.outcome == "ok":
            return True
        if rec.outcome != "ok":
            time.sleep(0.05)
    return False
