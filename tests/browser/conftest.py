"""Fixtures of the console's browser tests: a real daemon, a real cluster (a broker, two workers) and a
headless Debian Chromium driven through chromedriver (both from apt; selenium from PyPI). The driver's
path is given, so selenium never downloads one."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "tests"))

from layoutd_testkit import Server, start_cluster, start_single  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

#: Where screenshots go (a test artifact); LAYOUTD_BROWSER_ARTIFACTS overrides.
ARTIFACTS = Path(os.environ.get("LAYOUTD_BROWSER_ARTIFACTS", Path(__file__).parent / "artifacts"))


def chromium_paths() -> tuple[str, str]:
    browser = os.environ.get("LAYOUTD_CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
    driver = os.environ.get("LAYOUTD_CHROMEDRIVER", shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return browser, driver


def make_driver() -> webdriver.Chrome:
    browser, driver = chromium_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1400,1000", "--hide-scrollbars"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


@pytest.fixture(scope="session")
def browser() -> Iterator[webdriver.Chrome]:
    driver = make_driver()
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def write_config(directory: Path, text: str) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "console.yaml"
    path.write_text(text)
    return str(path)


@pytest.fixture(scope="session")
def single_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp("console-single")
    server = start_single(workdir, args=["--journal", "none"])
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp("console-cluster")
    server = start_cluster(workdir, workers=2, broker_args=["--journal", "none"])
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["single", "cluster"])
def server(request: pytest.FixtureRequest) -> Server:
    return request.getfixturevalue("single_daemon" if request.param == "single" else "cluster")


#: With LAYOUTD_BROWSER_DOCS_IMAGES=1, the screenshots named for the docs are also written to docs/images.
DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


def screenshot(driver: webdriver.Chrome, name: str, docs_name: str | None = None) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    if docs_name and os.environ.get("LAYOUTD_BROWSER_DOCS_IMAGES") == "1":
        shutil.copyfile(path, DOCS_IMAGES / f"{docs_name}.png")
    return path
