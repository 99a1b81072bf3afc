"""The dashboard in Chromium against a real Tidings: sign in, create a
watch, see a change and its diff arrive without a reload, retry a failed
delivery, the other views, sign out; every request stays on the origin and
no URL holds a credential. Each view is saved as a screenshot."""

import http.client
import re
import time
from urllib.parse import urlsplit

from playwright.sync_api import expect

from conftest import ADMIN, web_push_subscription

POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
          "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
WAIT = 30_000


def new_user(tidings, name, whole=False):
    status, _, body = tidings.call("POST", "/v1/users", ADMIN, {"name": name})
    assert status == 201, body
    return body if whole else body["api_key"]


def sign_in(page, tidings, credential):
    page.goto(tidings.base + "/")
    expect(page.get_by_label("API key or admin token")).to_be_focused()
    page.get_by_label("API key or admin token").fill(credential)
    page.get_by_role("button", name="Sign in").click()


def assert_stayed_home(page, tidings, *credentials):
    origin = urlsplit(tidings.base)
    for url in page.recorder.urls:
        parts = urlsplit(url)
        assert parts.scheme in ("data", "blob") or (parts.scheme, parts.netloc) == (origin.scheme, origin.netloc), f"left the origin: {url}"
        for credential in credentials:
            assert credential not in url, f"a credential in a URL: {url}"
    assert page.recorder.policy_violations == []
    assert page.recorder.script_errors == []


def test_the_page_is_served_with_a_strict_policy(tidings):
    for path in ["/ui/", "/ui/app.js", "/ui/dashboard.css"]:
        status, headers, _ = tidings.call("GET", path)
        assert status == 200
        assert headers["Content-Security-Policy"] == POLICY
        assert "unsafe-inline" not in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
    connection = http.client.HTTPConnection(urlsplit(tidings.base).netloc, timeout=30)
    connection.request("GET", "/")
    answer = connection.getresponse()
    assert answer.status == 302 and answer.getheader("Location") == "/ui/"
    connection.close()


def test_a_user_watches_sees_a_change_retries_a_delivery_and_signs_out(page, tidings, origin, shots):
    key = new_user(tidings, "Ada")
    status, _, webhook = tidings.call("POST", "/v1/webhooks", key, {"url": origin.base + "/hook", "event_types": ["watch.changed"]})
    assert status == 201, webhook
    status, _, device = tidings.call("POST", "/v1/devices", key, {"platform": "ios", "push_token": "ab" * 32, "name": "Ada's phone"})
    assert status in (200, 201), device
    # Nothing listens on port 1: its pushes fail and wait for a retry.
    status, _, browser_device = tidings.call("POST", "/v1/devices", key, {
        "platform": "web", "name": "Ada's browser", "push_subscription": web_push_subscription("https://127.0.0.1:1/push/ada"),
    })
    assert status in (200, 201), browser_device

    response = page.goto(tidings.base + "/ui/")
    assert response.headers["content-security-policy"] == POLICY
    page.screenshot(path=shots / "01-sign-in.png")
    page.get_by_label("API key or admin token").fill("tds_not_a_key_0000000000000000000000000000000000")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not accepted")

    sign_in(page, tidings, key)
    expect(page.get_by_role("heading", name="Watches", level=1)).to_be_visible()
    expect(page.get_by_text("No watches yet")).to_be_visible()
    # The event stream is open (with a one-time token, not the key).
    expect(page.locator("#live-status")).to_have_text("Live", timeout=WAIT)
    assert any("/v1/events?token=tds_" in url for url in page.recorder.urls)
    assert page.evaluate("sessionStorage.getItem('tidings.credential')") == key
    assert page.evaluate("localStorage.length") == 0
    assert page.evaluate("document.cookie") == ""

    # Create a watch through the form.
    page.get_by_label("URL").fill(origin.base + "/pricing")
    page.get_by_label("Name").fill("Pricing")
    page.get_by_label("CSS selector").fill("main")
    page.get_by_label("Check every (seconds)").fill("3")
    page.get_by_role("button", name="Add watch").click()
    row = page.locator("#watches-table tbody tr", has_text="Pricing")
    expect(row).to_be_visible()
    page.screenshot(path=shots / "02-watches.png", full_page=True)

    # The watch's page: wait for the baseline, then change the origin and
    # see the change arrive on the open page, which never reloads.
    row.get_by_role("link", name="Pricing").click()
    expect(page.get_by_role("heading", name="Pricing", level=1)).to_be_visible()
    expect(page.locator("#watch-state")).to_contain_text("ok", timeout=WAIT)
    expect(page.get_by_text("No changes yet")).to_be_visible()
    page.evaluate("window.notReloaded = true")
    origin.page = origin.page.replace("$10", "$12")
    change = page.locator("article.change").first
    expect(change).to_be_visible(timeout=WAIT)
    expect(change.locator(".diff-added")).to_have_text(re.compile(r"Pro plan: \$12"))
    expect(change.locator(".diff-removed")).to_have_text(re.compile(r"Pro plan: \$10"))
    expect(change.locator("figcaption")).to_have_text("1 line added, 1 removed")
    expect(page.locator("#watch-unread")).to_have_text("1", timeout=WAIT)
    assert page.evaluate("window.notReloaded") is True
    page.screenshot(path=shots / "03-watch.png", full_page=True)

    # "Test this rule": what a selector extracts from the live page, before
    # saving it; then save it.
    page.get_by_label("Expression").fill("main > p:first-child")
    page.get_by_role("button", name="Test this rule").click()
    preview = page.locator("#rule-preview")
    expect(preview.get_by_role("alert")).to_contain_text("not supported: pseudo-classes", timeout=WAIT)
    page.get_by_label("Expression").fill("main > p")
    page.get_by_role("button", name="Test this rule").click()
    expect(preview.locator("pre.extracted")).to_have_text("Pro plan: $12\nTeam plan: $30", timeout=WAIT)
    expect(preview).to_contain_text("HTTP 200, 2 lines")
    page.screenshot(path=shots / "03b-rule-preview.png", full_page=True)
    page.get_by_label("Expression").fill("aside")
    page.get_by_role("button", name="Test this rule").click()
    expect(preview).to_contain_text("The rule extracts nothing", timeout=WAIT)
    page.get_by_label("Expression").fill("main")
    page.get_by_role("button", name="Save rule").click()
    expect(page.get_by_text("Saved.")).to_be_visible()

    # Check now answers on the page.
    page.get_by_role("button", name="Check now").click()
    expect(page.locator("#toast")).to_contain_text(re.compile(r"Checked: unchanged|is running"), timeout=WAIT)

    # The change went to the failing receiver: one attempt, failed. Retry
    # it once the receiver accepts.
    page.get_by_role("link", name="Webhooks").click()
    failed = page.locator("li.delivery[data-status=failed]").first
    expect(failed).to_be_visible(timeout=WAIT)
    expect(failed.locator("table.attempts")).to_contain_text("500")
    page.screenshot(path=shots / "04-webhooks-failed.png", full_page=True)
    origin.receiver_status = 204
    delivery_id = failed.get_attribute("data-delivery-id")
    failed.get_by_role("button", name="Retry").click()
    succeeded = page.locator(f"li.delivery[data-delivery-id='{delivery_id}'][data-status=succeeded]")
    expect(succeeded).to_be_visible(timeout=WAIT)
    expect(succeeded.locator("table.attempts")).to_contain_text("204")
    page.screenshot(path=shots / "05-webhooks-retried.png", full_page=True)

    # Recover: the next change fails too; once the receiver is back, one
    # click sends every failed delivery of the last hour again.
    origin.receiver_status = 500
    origin.page = origin.page.replace("$30", "$35")
    expect(page.locator("li.delivery[data-status=failed]")).to_have_count(1, timeout=WAIT)
    origin.receiver_status = 204
    page.get_by_role("button", name="Recover").click()
    expect(page.locator("#toast")).to_have_text("1 delivery queued again.")
    expect(page.locator("li.delivery[data-status=succeeded]")).to_have_count(2, timeout=WAIT)
    expect(page.locator("li.delivery[data-status=failed]")).to_have_count(0)

    # The change's badge push to each device: skipped for the phone (no
    # APNs app), failing for the browser (nothing listens on port 1).
    pushes = {}
    for entry in (device, browser_device):
        deadline = time.monotonic() + WAIT / 1000
        while not pushes.get(entry["id"]):
            assert time.monotonic() < deadline, "no push to the device"
            pushes[entry["id"]] = tidings.call("GET", f"/v1/devices/{entry['id']}/pushes", key)[2]["data"]
            time.sleep(0.2)
    page.get_by_role("link", name="Devices").click()
    for entry, name in ((device, "Ada's phone"), (browser_device, "Ada's browser")):
        page.get_by_text(name).click()
        opened = page.locator(f"details[data-device-id='{entry['id']}']")
        expect(opened).to_contain_text("Last seen")
        expect(opened.locator("tbody tr")).to_have_count(len(pushes[entry["id"]]))
        expect(opened.locator("tbody tr").first).to_contain_text(pushes[entry["id"]][0]["status"])
    expect(page.locator(f"details[data-device-id='{device['id']}']")).to_contain_text("skipped")
    assert "ab" * 32 not in page.content()
    page.screenshot(path=shots / "06-devices.png", full_page=True)

    page.get_by_role("link", name="Badge").click()
    expect(page.locator("#badge-count")).to_have_text("2")
    page.screenshot(path=shots / "07-badge.png", full_page=True)
    page.get_by_role("button", name="Mark everything read").click()
    expect(page.locator("#badge-count")).to_have_text("0")
    expect(page.get_by_text("Nothing unread.")).to_be_visible()

    # Pause and resume (pausing reads the watch's changes: migration 0006).
    page.get_by_role("link", name="Watches").click()
    page.locator("#watches-table").get_by_role("link", name="Pricing").click()
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("#watch-state")).to_contain_text("paused")
    page.get_by_role("button", name="Resume").click()
    expect(page.locator("#watch-state")).not_to_contain_text("paused")

    page.get_by_role("link", name="Import").click()
    page.get_by_label("File to import").set_input_files(files=[{
        "name": "feeds.opml", "mimeType": "text/x-opml",
        "buffer": f'<?xml version="1.0"?><opml version="2.0"><body><outline text="Blog" xmlUrl="{origin.base}/feed.xml"/></body></opml>'.encode(),
    }])
    page.get_by_role("button", name="Preview").click()
    result = page.locator("#import-result")
    expect(result).to_contain_text("Format: opml. Would create")
    page.screenshot(path=shots / "08-import.png", full_page=True)
    # A file past TIDINGS_MAX_IMPORT_SIZE (8 MiB): the browser sends it
    # whole without waiting, and the page shows the server's reason, not
    # a connection reset ("Tidings cannot be reached").
    page.get_by_label("File to import").set_input_files(files=[{
        "name": "huge.opml", "mimeType": "text/x-opml", "buffer": b" " * ((8 << 20) + 1),
    }])
    page.get_by_role("button", name="Preview").click()
    expect(result).to_contain_text(f"The import was refused: The request body exceeds {8 << 20} bytes.")
    page.screenshot(path=shots / "08-import-too-large.png", full_page=True)

    # At a phone's width the watches table becomes labelled cards.
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_role("link", name="Watches").click()
    expect(page.locator("#watches-table")).to_be_visible()
    assert page.locator("#watches-table thead").bounding_box()["height"] <= 1
    page.screenshot(path=shots / "09-watches-phone.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("API key or admin token")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0
    assert "#" not in page.url or page.url.endswith("/ui/")
    page.screenshot(path=shots / "10-signed-out.png")
    # The key is gone: going back into a view asks for it again.
    page.goto(tidings.base + "/ui/#/watches")
    expect(page.get_by_label("API key or admin token")).to_be_visible()

    assert_stayed_home(page, tidings, key, ADMIN)


def test_watches_filter_search_and_page(page, tidings, origin, shots):
    created = new_user(tidings, "Grace", whole=True)
    key = created["api_key"]
    for number in range(30):
        status, _, body = tidings.call("POST", "/v1/watches", key, {"url": f"{origin.base}/page/{number}", "name": f"Page {number:02d}"})
        assert status == 201, body
    sign_in(page, tidings, key)
    rows = page.locator("#watches-table tbody tr")
    expect(rows).to_have_count(25)
    page.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(5)
    expect(page.get_by_text("Page 2", exact=True)).to_be_visible()
    page.get_by_role("button", name="Previous page").click()
    expect(rows).to_have_count(25)
    page.get_by_label("Search").fill("Page 07")
    expect(rows).to_have_count(1)
    page.get_by_label("Search").fill("")
    page.get_by_label("State").select_option("failing")
    expect(page.get_by_text("No watch matches these filters.")).to_be_visible(timeout=WAIT)
    # Keyboard: a view opens with focus on its heading, and Tab goes on to
    # its first field; the skip link lands on the content and leaves the
    # view in place.
    page.reload()
    expect(page.get_by_role("heading", name="Watches", level=1)).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.get_by_label("URL")).to_be_focused()
    page.get_by_role("link", name="Skip to content").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#main")).to_be_focused()
    expect(page.get_by_role("heading", name="Watches", level=1)).to_be_visible()

    # A key revoked meanwhile: the next call signs the page out, saying why.
    status, _, _ = tidings.call("DELETE", f"/v1/users/{created['user']['id']}/keys/{created['key']['id']}", ADMIN)
    assert status == 200
    page.get_by_role("button", name="Next page").click()
    expect(page.get_by_role("alert")).to_have_text("The key is no longer accepted; sign in again.")
    expect(page.get_by_label("API key or admin token")).to_be_visible()
    assert page.evaluate("sessionStorage.length") == 0
    assert_stayed_home(page, tidings, key, ADMIN)


def test_the_admin_sees_users_limits_and_push_apps_without_secrets(page, tidings, shots):
    key = new_user(tidings, "Linus")
    sign_in(page, tidings, ADMIN)
    expect(page.get_by_role("heading", name="Admin", level=1)).to_be_visible()
    # The admin has no event stream: the page polls.
    expect(page.locator("#live-status")).to_have_text("Updating every 15 s")
    user = page.locator("details", has_text="Linus").first
    user.locator("summary").click()
    watches_limit = user.get_by_label("Own watches limit")
    expect(watches_limit).to_be_visible()
    watches_limit.fill("7")
    user.get_by_role("button", name="Save limits").click()
    expect(page.locator("#toast")).to_contain_text("Limits saved")
    status, _, detail = tidings.call("GET", "/v1/me", key)
    assert status == 200
    users = tidings.call("GET", "/v1/users?limit=200", ADMIN)[2]["data"]
    linus = next(entry for entry in users if entry["name"] == "Linus")
    assert tidings.call("GET", f"/v1/users/{linus['id']}", ADMIN)[2]["limits"]["watches"] == 7
    expect(page.get_by_text("No push apps")).to_be_visible()
    page.screenshot(path=shots / "11-admin.png", full_page=True)
    assert key not in page.content() and ADMIN not in page.content()
    page.get_by_role("link", name="Global webhooks").click()
    expect(page.get_by_role("heading", name="Global webhooks", level=1)).to_be_visible()
    expect(page.get_by_text("No webhooks yet")).to_be_visible()
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("API key or admin token")).to_be_visible()
    assert_stayed_home(page, tidings, key, ADMIN)
