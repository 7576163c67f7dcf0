"""The browser the site's tests drive: Debian's Chromium through chromedriver (Selenium),
headless, at 1280x800, keeping the console's messages, its ``get`` returning once the page
has loaded; and the contrast of two of its colours."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"),
                             shutil.which("google-chrome")) if p), None)
DRIVER = shutil.which("chromedriver")
MISSING = "no Chromium and chromedriver installed (apt-get install chromium chromium-driver)"
#: The document navigated to has loaded (not the one left, which the navigation marked), its
#: stylesheets applied, its scripts run and its fonts in.
LOADED = ("return !window.arenaLeftBehind && document.readyState === 'complete'"
          " && document.fonts.status === 'loaded'")


def loading_chrome() -> Any:
    """Chrome whose ``get`` returns once the new page has loaded. On a busy machine
    chromedriver's own wait sometimes returned while the page was still loading: measured
    before its stylesheet applied it was wider than the window, and its scripts had not run."""
    from selenium import webdriver
    from selenium.common.exceptions import JavascriptException
    from selenium.webdriver.support.ui import WebDriverWait

    class LoadingChrome(webdriver.Chrome):
        def get(self, url: str) -> None:
            if "#" in url and self.current_url.split("#")[0] == url.split("#")[0]:
                super().get(url)  # the same document at another fragment: nothing loads
                return
            self.execute_script("window.arenaLeftBehind = true")
            super().get(url)
            WebDriverWait(self, 60, poll_frequency=0.05,
                          ignored_exceptions=(JavascriptException,)).until(
                lambda driver: driver.execute_script(LOADED))

    return LoadingChrome


@contextmanager
def chromium() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    # --no-sandbox: Chromium refuses to start as root without it (CI runs as root)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--allow-file-access-from-files"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = loading_chrome()(service=Service(str(DRIVER)), options=options)
    driver.set_window_size(1280, 800)
    try:
        yield driver
    finally:
        driver.quit()


def contrast(foreground: str, background: str) -> float:
    """WCAG 2's contrast ratio of two computed colours ("rgb(r, g, b)" or "rgba(...)")."""
    def luminance(colour: str) -> float:
        channels = [int(c) / 255 for c in colour[colour.index("(") + 1:-1].split(",")[:3]]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
                  for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
