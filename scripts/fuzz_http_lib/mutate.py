"""Mutations of request bodies and paths, seeded: the HTTP fuzzer's inputs."""
import os

ASSETS = ["index.html", "console.css", "app.js", "api.js", "chart.js", "overview.js", "layouts.js", "events.js",
          "playground.js", "jobs/list.json", "jobs/mosaic.json"]
PATHS = ["/", "/console/", "/api/request", "/api/stats", "/api/events", "/api/console", "/api/", "/metrics", "/healthz",
         "/readyz", "/nope", "/console/../api/stats", "/api/request/", "//api/stats", "/API/stats", "*", "/favicon.ico"]


def load_words(dictionary):
    """The quoted words of Fuzz/request.dict, as bytes."""
    words = []
    with open(dictionary, "rb") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith(b'"') and line.endswith(b'"'):
                words.append(line[1:-1].replace(b'\\"', b'"'))
    return words or [b'"op"']


WORDS = [b'"op"']
SPLICES = [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x00", b"\\u0000", b"\\ud800", b"NaN", b"-0", b"1e999", b"[" * 600,
           b"{" * 600, b'"' + b"\xe2\x82" + b'"', b"18446744073709551616", b"null", b"true", b",", b"]", b"}", b":"]


def mutate(body, rng):
    data = bytearray(body)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(8)
        at = rng.randint(0, len(data))
        if choice == 0 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif choice == 1:
            data[at:at] = rng.choice(WORDS)
        elif choice == 2:
            data[at:at] = rng.choice(SPLICES)
        elif choice == 3 and data:
            end = min(len(data), at + rng.randint(1, 64))
            del data[at:end]
        elif choice == 4 and data:
            end = min(len(data), at + rng.randint(1, 256))
            data[at:at] = data[at:end] * rng.randint(1, 16)
        elif choice == 5:
            del data[at:]
        elif choice == 6:
            op = rng.choice([b"layout", b"prepare", b"query", b"update", b"diff", b"drop", b"list", b"ping", b"route",
                             b"bounds", b"stats", b"nope"])
            data = bytearray(bytes(data).replace(b'"op":"', b'"op":"' + op + b'","x":"', 1))
        else:
            data[at:at] = os.urandom(rng.randint(1, 8)) if rng.random() < 0.2 else bytes(rng.randrange(256) for _ in range(4))
    return bytes(data)


def random_path(rng):
    if rng.random() < 0.4:
        path = "/console/" + rng.choice(ASSETS)
    else:
        path = rng.choice(PATHS)
    if rng.random() < 0.2:
        path += rng.choice(["%2e%2e/", "%00", "%ff", "?", "?topic=", "#x", "..", "/" * 20, "\u00e9"])
    if rng.random() < 0.2:
        path += "?" + "&".join("%s=%s" % (rng.choice("abtopic"), rng.randrange(1000)) for _ in range(rng.randint(1, 5)))
    return path
