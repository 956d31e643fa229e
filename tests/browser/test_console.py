"""The web console in a real Chromium against a real daemon and a real cluster (docs/OPERATIONS.md, The web
console): what it draws equals what `query` answers, it asks only for what is on screen, it follows
changes live, the playground shows an error's path, and with CURVE and no token it shows nothing."""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import ARTIFACTS, screenshot, write_config
from layoutd import Client, CurveKeys
from layoutd_testkit import Server, start_single, write_key_files
from selenium import webdriver
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 20.0
LIST_SPEC = {"type": "list", "itemHeight": 44, "spacing": 2, "header": 28, "footer": 20,
             "sectionInsets": {"top": 8, "left": 12, "bottom": 8, "right": 12}}

# Every drawn element as the browser placed it, in content coordinates (its box on screen, less the
# canvas's, plus the canvas's viewBox origin).
DRAWN = """
const svg = document.getElementById('canvas');
const box = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
return [...svg.querySelectorAll('rect.el')].map((r) => { const b = r.getBoundingClientRect();
  return {kind: r.dataset.kind, section: +r.dataset.section, item: +r.dataset.item,
          x: b.left - box.left + vb.x, y: b.top - box.top + vb.y, width: b.width, height: b.height}; });
"""


def client_of(server: Server) -> Client:
    return Client(server.front, timeout=10.0, attempts=3, direct_reads="off")


def prepare(server: Server, key: str, sections: list[dict[str, Any]], spec: dict[str, Any] | None = None) -> dict[str, Any]:
    client = client_of(server)
    try:
        return client.request("prepare", {"layout": key, "bounds": {"width": 390, "height": 700},
                                          "spec": spec or LIST_SPEC, "decorations": {"sectionBackground": True},
                                          "sections": sections})
    finally:
        client.close()


def open_page(driver: webdriver.Chrome, server: Server, fragment: str) -> None:
    driver.get("about:blank")
    driver.get(f"http://{server.http}/#{fragment}")


def wait_for(driver: webdriver.Chrome, script: str, what: str, timeout: float = WAIT) -> Any:
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.02).until(lambda d: d.execute_script(script))
    except Exception as error:  # noqa: BLE001: the page's state says more than selenium's timeout
        state = driver.execute_script("return {meter: window.__console, text: document.body.innerText.slice(0, 800)}")
        raise AssertionError(f"{what}: not within {timeout}s; page: {state}") from error


def settled(driver: webdriver.Chrome) -> None:
    wait_for(driver, "const m = window.__console; return m && m.elements > 0 && m.inFlight === 0 && !m.pending",
             "the inspector drew its first view")


def same_frames(drawn: list[dict[str, Any]], answered: list[dict[str, Any]]) -> None:
    key = lambda a: (a["kind"], a["section"], a["item"])  # noqa: E731
    by_key = {key(a): a for a in answered}
    assert sorted(by_key) == sorted(key(a) for a in drawn), "the drawn elements are not the query's"
    for element in drawn:
        expected = by_key[key(element)]
        for name in ("x", "y", "width", "height"):
            assert abs(element[name] - expected[name]) <= 0.5, (element, expected)


def test_inspector_draws_the_frames_a_query_answers(browser: webdriver.Chrome, server: Server) -> None:
    key = f"frames-{server.role}"
    prepare(server, key, [{"count": 12}, {"items": [{"height": 80}, {"height": 30}] * 10}])
    open_page(browser, server, f"layouts/{key}")
    settled(browser)
    rect = browser.execute_script("return window.__console.lastRect")
    drawn = browser.execute_script(DRAWN)
    client = client_of(server)
    try:
        answered = client.request("query", {"layout": key, "rect": rect})["attributes"]
    finally:
        client.close()
    assert len(drawn) > 10
    same_frames(drawn, answered)
    kinds = {a["kind"] for a in drawn}
    assert {"cell", "header", "footer"} <= kinds, kinds
    # Clicking an element shows its attributes.
    browser.execute_script("document.querySelector('#canvas rect[data-kind=\"cell\"]').dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    shown = json.loads(browser.find_element("id", "attributes").text)
    assert shown["kind"] == "cell" and set(shown["frame"]) == {"x", "y", "width", "height"}
    screenshot(browser, f"layouts-inspector-{server.role}")


def test_layouts_list_searches_and_sorts(browser: webdriver.Chrome, single_daemon: Server) -> None:
    for name, count in (("list-small", 3), ("list-large", 300), ("other", 30)):
        prepare(single_daemon, name, [{"count": count}])
    open_page(browser, single_daemon, "layouts")
    wait_for(browser, "return document.querySelectorAll('#layouts tbody tr').length >= 3", "the list")
    browser.execute_script("const s = document.getElementById('sort'); s.value = 'items'; s.dispatchEvent(new Event('change'))")
    keys = browser.execute_script("return [...document.querySelectorAll('#layouts tbody tr')].map((r) => r.dataset.layout)")
    assert keys.index("list-large") < keys.index("other") < keys.index("list-small")
    search = browser.find_element("id", "search")
    search.send_keys("list-")
    keys = browser.execute_script("return [...document.querySelectorAll('#layouts tbody tr')].map((r) => r.dataset.layout)")
    assert set(keys) == {"list-small", "list-large"}
    screenshot(browser, "layouts-list", "console-layouts-list")


def test_scrolling_a_million_items_asks_only_for_what_is_on_screen(browser: webdriver.Chrome, single_daemon: Server) -> None:
    prepare(single_daemon, "million", [{"count": 1_000_000}], spec={"type": "list", "itemHeight": 44})
    open_page(browser, single_daemon, "layouts/million")
    settled(browser)
    before = browser.execute_script("return {...window.__console}")
    steps = 40
    for _ in range(steps):
        browser.execute_script("document.getElementById('viewport').scrollTop += 300")
        settled(browser)
    after = browser.execute_script("return {...window.__console}")
    assert after["maxInFlight"] == 1
    # At most one request per scroll step, and only some steps need one (the view asks for 3 screens).
    assert after["requests"] - before["requests"] <= steps
    assert after["elements"] <= 3 * 1000 // 44 + 10
    # A jump to the middle draws what is there.
    browser.execute_script("const v = document.getElementById('viewport'); v.scrollTop = v.scrollHeight / 2")
    wait_for(browser, """const m = window.__console, v = m.view(); return m.inFlight === 0 && !m.pending &&
      [...document.querySelectorAll('#canvas rect')].some((r) => +r.getAttribute('y') <= v.y && +r.getAttribute('y') + 44 >= v.y)""",
             "the middle of the layout drawn")
    view = browser.execute_script("return window.__console.view()")
    assert view["y"] > 10_000_000
    screenshot(browser, "layouts-million")


def test_an_update_appears_in_the_picture_and_the_tail(browser: webdriver.Chrome, server: Server) -> None:
    key = f"live-{server.role}"
    prepare(server, key, [{"count": 30}])
    open_page(browser, server, f"layouts/{key}")
    settled(browser)
    inspector = browser.current_window_handle
    browser.switch_to.new_window("tab")
    tail = browser.current_window_handle
    browser.get(f"http://{server.http}/#events")
    wait_for(browser, "return document.getElementById('tail-state').textContent === 'open'", "the events tail open")
    client = client_of(server)
    try:
        # The tail's subscription reaches the daemon a moment after its stream opens: an update sent before
        # that is not seen, so the test sends another until one is (each within a generous bound).
        deadline = time.monotonic() + 60
        while True:
            sent = time.monotonic()
            version = client.request("update", {"layout": key, "updates": [{"insert": [0, 0], "item": {"height": 90}}]})["version"]
            try:
                wait_for(browser, f"return !!document.querySelector('#rows tr[data-layout=\"{key}\"][data-version=\"{version}\"]')",
                         "the update in the tail", timeout=3)
                break
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
        tail_seconds = time.monotonic() - sent
        browser.switch_to.window(inspector)
        wait_for(browser, f"return document.getElementById('version').textContent === '{version}'", "the update in the picture")
        picture_seconds = time.monotonic() - sent
        drawn = browser.execute_script(DRAWN)
        first = next(a for a in drawn if a["kind"] == "cell" and a["section"] == 0 and a["item"] == 0)
        assert abs(first["height"] - 90) <= 0.5
        print(f"update seen in the tail after {tail_seconds * 1000:.0f} ms, in the picture after {picture_seconds * 1000:.0f} ms")
        screenshot(browser, f"layouts-live-{server.role}", "console-layouts" if server.role == "cluster" else None)
        browser.switch_to.window(tail)
        screenshot(browser, f"events-{server.role}", "console-events" if server.role == "cluster" else None)
    finally:
        client.close()
        browser.switch_to.window(tail)
        browser.close()
        browser.switch_to.window(inspector)


def test_playground_lays_out_as_you_type_and_shows_an_error_path(browser: webdriver.Chrome, server: Server) -> None:
    open_page(browser, server, "playground")
    wait_for(browser, "return document.querySelectorAll('#preview rect').length > 5", "the example laid out")
    screenshot(browser, f"playground-{server.role}", "console-playground" if server.role == "single" else None)
    job = {"bounds": {"width": 375, "height": 667}, "spec": {"type": "list", "itemHeight": 44},
           "sections": [{"heights": [40, -5, 60]}]}
    set_editor(browser, json.dumps(job, indent=2))
    wait_for(browser, "return document.getElementById('pg-error').dataset.path === 'sections[0].heights[1]'", "the error's path")
    assert "invalid_request" in browser.find_element("id", "pg-error").text
    screenshot(browser, f"playground-error-{server.role}", "console-playground-error" if server.role == "single" else None)
    # Fixed, it is laid out again; mirrored right to left, every frame is W - (x + w).
    job["sections"][0]["heights"][1] = 50
    job["spec"]["sectionInsets"] = {"left": 10, "right": 40}
    set_editor(browser, json.dumps(job, indent=2))
    wait_for(browser, "return document.getElementById('pg-error').textContent === '' && document.querySelectorAll('#preview rect').length === 3", "the fixed job")
    xs = browser.execute_script("return [...document.querySelectorAll('#preview rect')].map((r) => +r.getAttribute('x'))")
    browser.execute_script("document.getElementById('rtl').click()")
    wait_for(browser, f"return [...document.querySelectorAll('#preview rect')].every((r) => +r.getAttribute('x') !== {xs[0]})", "the mirrored layout")
    mirrored = browser.execute_script("return [...document.querySelectorAll('#preview rect')].map((r) => +r.getAttribute('x') + +r.getAttribute('width'))")
    assert all(abs((375 - m) - x) <= 0.5 for m, x in zip(mirrored, xs))


def test_overview_charts_stats_and_a_brokers_workers(browser: webdriver.Chrome, server: Server) -> None:
    client = client_of(server)
    try:
        # Some traffic to chart, and a few samples of it.
        for n in range(30):
            client.request("layout", {"bounds": {"width": 375, "height": 600}, "spec": {"type": "list"}, "sections": [{"count": 50 + n}]})
        open_page(browser, server, "overview")
        for n in range(3):
            wait_for(browser, f"return document.querySelectorAll('#charts polyline').length >= 3 && (window.__samples ?? 0) > {n}", "the charts")
            client.request("ping")
            client.request("list")
    finally:
        client.close()
    if server.role == "cluster":
        wait_for(browser, "return document.querySelectorAll('#workers tbody tr').length === 2", "the two workers")
    screenshot(browser, f"overview-{server.role}", "console-overview" if server.role == "cluster" else None)


def set_editor(driver: webdriver.Chrome, text: str) -> None:
    driver.execute_script("const e = document.getElementById('editor'); e.value = arguments[0]; e.dispatchEvent(new Event('input'))", text)


def status_of(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_with_curve_and_no_token_the_console_answers_401(browser: webdriver.Chrome, tmp_path: Path) -> None:
    public, _ = write_key_files(tmp_path, "server")
    admin_public, admin_secret = write_key_files(tmp_path, "admin")
    (tmp_path / "clients.keys").write_text(f"{admin_public.decode()} ops admin\n")
    curve = CurveKeys(secret_key=admin_secret, server_key=public)
    server = start_single(tmp_path / "run", curve=curve, args=[
        "--journal", "none", "--server-secret-key-file", str(tmp_path / "server.key"),
        "--client-keys-file", str(tmp_path / "clients.keys")])
    try:
        for path in ("/", "/console/app.js", "/api/stats"):
            status, body = status_of(f"http://{server.http}{path}")
            assert status == 401, (path, status)
            assert json.loads(body)["error"]["code"] == "unauthorized"
        browser.get(f"http://{server.http}/")
        assert browser.execute_script("return document.querySelector('nav') === null && document.querySelector('svg') === null")
        screenshot(browser, "curve-no-token")
        # The probes are not the console's: they still answer.
        assert status_of(f"http://{server.http}/healthz")[0] == 200
    finally:
        server.stop()


def test_with_curve_and_a_token_the_api_answers_the_bearer(browser: webdriver.Chrome, tmp_path: Path) -> None:
    public, _ = write_key_files(tmp_path, "server")
    admin_public, admin_secret = write_key_files(tmp_path, "admin")
    (tmp_path / "clients.keys").write_text(f"{admin_public.decode()} ops admin\n")
    curve = CurveKeys(secret_key=admin_secret, server_key=public)
    token = "a-console-token-of-tests-0123456789"
    config = write_config(tmp_path, f"console:\n  token: \"{token}\"\njournal:\n  url: none\n")
    server = start_single(tmp_path / "run", curve=curve, args=[
        "--config", config, "--server-secret-key-file", str(tmp_path / "server.key"),
        "--client-keys-file", str(tmp_path / "clients.keys")])
    try:
        assert status_of(f"http://{server.http}/api/stats")[0] == 401
        assert status_of(f"http://{server.http}/api/stats", {"Authorization": "Bearer wrong-token-wrong-token"})[0] == 401
        status, body = status_of(f"http://{server.http}/api/stats", {"Authorization": f"Bearer {token}"})
        assert status == 200 and "uptimeSeconds" in json.loads(body)
        # The page asks for the token, then shows the daemon.
        browser.get(f"http://{server.http}/#overview")
        wait_for(browser, "return !document.getElementById('token-form').hidden", "the token form")
        browser.find_element("id", "token").send_keys(token)
        browser.find_element("css selector", "#token-form button").click()
        wait_for(browser, "return document.querySelectorAll('#charts polyline').length >= 3", "the charts with the token")
    finally:
        browser.execute_script("sessionStorage.clear()")
        server.stop()

