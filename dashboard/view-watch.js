import { APIError, get, patch, post, query } from "./api.js";
import { actionButton, h, notice, replace, stateBadge, time, toast } from "./dom.js";
import { renderDiff } from "./diff.js";

const RULE_KINDS = [
  ["", "Readable text of the whole page"],
  ["css", "CSS selector"],
  ["xpath", "XPath"],
  ["json_pointer", "JSON pointer"],
  ["raw", "The raw body"],
];

// One watch: its state, actions (check now, pause or resume, mark read),
// its rule with a preview of what the rule extracts from the live page,
// and its changes with readable diffs.
export function watchView(container, subscribe, id) {
  const heading = h("h1", { tabindex: "-1" }, "Watch");
  const summary = h("div", { class: "card" });
  const ruleCard = h("section", { class: "card", "aria-labelledby": "rule-heading" });
  const changesList = h("div", { id: "changes" });
  const moreButton = h("button", { type: "button", hidden: true }, "Older changes");
  let watch = null;
  let changesCursor = null;

  async function loadWatch() {
    try {
      watch = await get(`/v1/watches/${encodeURIComponent(id)}`);
    } catch (error) {
      replace(container, heading, notice("error", error.status === 404 ? "This watch does not exist, or is not yours." : error.message));
      return false;
    }
    heading.textContent = watch.name;
    document.title = `${watch.name} · Tidings`;
    renderSummary();
    return true;
  }

  function renderSummary() {
    replace(summary,
      h("dl", { class: "facts" },
        h("dt", {}, "URL"), h("dd", { class: "url" }, watch.url),
        h("dt", {}, "State"), h("dd", { id: "watch-state" }, stateBadge(watch.state), watch.paused ? h("span", { class: "state state-paused" }, "paused") : null),
        h("dt", {}, "Last check"), h("dd", {}, time(watch.last_checked_at), watch.last_check_result ? ` (${watch.last_check_result.replace("_", " ")})` : ""),
        h("dt", {}, "Next check"), h("dd", {}, watch.paused ? "paused" : time(watch.next_check_at)),
        h("dt", {}, "Last change"), h("dd", {}, time(watch.last_changed_at)),
        h("dt", {}, "Unread"), h("dd", { id: "watch-unread" }, String(watch.unread_count)),
        h("dt", {}, "Last error"), h("dd", { class: "error-text" }, watch.last_error || "—")),
      h("div", { class: "actions" },
        actionButton("Check now", checkNow, { id: "check-now" }),
        watch.paused
          ? actionButton("Resume", () => setPaused(false), { id: "resume" })
          : actionButton("Pause", () => setPaused(true), { id: "pause" }),
        actionButton("Mark read", markRead, { id: "mark-read", disabled: watch.unread_count === 0 })));
  }

  async function checkNow() {
    const outcome = await post(`/v1/watches/${encodeURIComponent(id)}/check`);
    watch = outcome.watch;
    renderSummary();
    toast(outcome.error ? `Check failed: ${outcome.error}` : `Checked: ${outcome.result.replace("_", " ")}.`);
    if (outcome.change_id) loadChanges(true);
  }

  async function setPaused(paused) {
    watch = await post(`/v1/watches/${encodeURIComponent(id)}/${paused ? "pause" : "resume"}`);
    renderSummary();
    toast(paused ? "Paused." : "Resumed.");
  }

  async function markRead() {
    await post(`/v1/watches/${encodeURIComponent(id)}/read`);
    await loadWatch();
    await loadChanges(true);
    toast("Marked read.");
  }

  function renderRule() {
    const rule = watch.extract || {};
    const current = RULE_KINDS.find(([kind]) => kind && rule[kind] !== undefined)?.[0] || "";
    const kindSelect = h("select", { id: "rule-kind" }, RULE_KINDS.map(([kind, label]) => h("option", { value: kind, selected: kind === current }, label)));
    const expression = h("input", { id: "rule-expression", type: "text", value: typeof rule[current] === "string" ? rule[current] : "" });
    const ignore = h("textarea", { id: "rule-ignore", rows: "3" }, (rule.ignore || []).join("\n"));
    const preview = h("div", { id: "rule-preview", "aria-live": "polite" });
    const message = h("div", { "aria-live": "polite" });
    const expressionRow = h("div", {}, h("label", { for: "rule-expression" }, "Expression"), expression);
    const syncVisibility = () => { expressionRow.hidden = kindSelect.value === "" || kindSelect.value === "raw"; };
    kindSelect.addEventListener("change", syncVisibility);
    syncVisibility();

    function ruleBody() {
      const kind = kindSelect.value;
      const patterns = ignore.value.split("\n").map((line) => line.trim()).filter(Boolean);
      if (!kind && patterns.length === 0) return null;
      const body = {};
      if (kind === "raw") body.raw = true;
      else if (kind) body[kind] = expression.value;
      if (patterns.length) body.ignore = patterns;
      return body;
    }

    replace(ruleCard,
      h("h2", { id: "rule-heading" }, "What is compared"),
      h("div", { class: "fields" },
        h("div", {}, h("label", { for: "rule-kind" }, "Rule"), kindSelect),
        expressionRow,
        h("div", {}, h("label", { for: "rule-ignore" }, "Ignore lines matching (one pattern a line)"), ignore)),
      h("div", { class: "actions" },
        actionButton("Test this rule", async () => {
          replace(preview, notice("empty", "Fetching the page…"));
          try {
            const body = { url: watch.url };
            const extract = ruleBody();
            if (extract) body.extract = extract;
            const answer = await post("/v1/watches/preview", body);
            replace(preview,
              h("p", { class: "muted" }, `HTTP ${answer.http_status ?? "—"}, ${answer.lines.length} line${answer.lines.length === 1 ? "" : "s"}${answer.truncated ? " (cut)" : ""}`),
              answer.lines.length ? h("pre", { class: "extracted" }, answer.lines.join("\n")) : notice("empty", "The rule extracts nothing from the page as it is now."));
          } catch (error) {
            replace(preview, notice("error", error instanceof APIError && error.status === 404 ? "This server cannot preview rules." : error.message));
          }
        }, { id: "test-rule" }),
        actionButton("Save rule", async () => {
          watch = await patch(`/v1/watches/${encodeURIComponent(id)}`, { extract: ruleBody() });
          renderSummary();
          replace(message, notice("empty", "Saved. The next check takes a new baseline."));
        }, { id: "save-rule" })),
      message,
      preview);
  }

  async function loadChanges(fromStart) {
    if (fromStart) changesCursor = null;
    try {
      const answer = await get(`/v1/watches/${encodeURIComponent(id)}/changes${query({ limit: 20, cursor: changesCursor })}`);
      const items = answer.data.map(renderChange);
      if (fromStart) {
        replace(changesList, items.length ? items : notice("empty", "No changes yet. The first check records a baseline; changes after it show here."));
      } else {
        for (const item of items) changesList.appendChild(item);
      }
      changesCursor = answer.next_cursor;
      moreButton.hidden = !changesCursor;
    } catch (error) {
      replace(changesList, notice("error", `The changes could not be loaded: ${error.message}`));
    }
  }

  function renderChange(change) {
    return h("article", { class: `card change${change.read ? "" : " unread"}`, "data-change-id": change.id },
      h("h3", {}, time(change.detected_at), " ", change.read ? "" : h("span", { class: "state state-unread" }, "unread"),
        change.http_status ? h("span", { class: "muted" }, ` HTTP ${change.http_status}`) : null),
      renderDiff(change.diff),
      change.snapshot_truncated ? h("p", { class: "muted" }, "The page was longer than the stored snapshot; only its start is compared.") : null);
  }

  moreButton.addEventListener("click", () => loadChanges(false));
  replace(container,
    h("p", {}, h("a", { href: "#/watches" }, "← All watches")),
    heading, summary, ruleCard,
    h("section", { "aria-labelledby": "changes-heading" }, h("h2", { id: "changes-heading" }, "Changes"), changesList, moreButton));
  subscribe((type, event) => {
    const watchID = event?.data?.watch_id;
    if (type === "poll" || type === "stream.resync" || watchID === id) {
      // The list is redrawn, not announced; the toast (a live region) says why.
      if (type === "watch.changed") toast("This watch changed; the new change is at the top of Changes.");
      loadWatch();
      if (type !== "watch.failing") loadChanges(true);
    }
  });
  // Checks without a change raise no event: refresh the facts now and
  // then while the tab is visible, soon while a baseline is awaited.
  const scheduleRefresh = () => {
    setTimeout(async () => {
      if (!container.isConnected) return;
      if (!document.hidden) await loadWatch();
      scheduleRefresh();
    }, watch?.state === "pending" ? 2000 : 15000);
  };
  scheduleRefresh();
  loadWatch().then((found) => {
    if (!found) return;
    renderRule();
    loadChanges(true);
  });
}
