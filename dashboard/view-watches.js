import { get, post, query } from "./api.js";
import { h, notice, replace, stateBadge, time, toast } from "./dom.js";

const PAGE_SIZE = 25;

// The caller's watches: state, last and next check, last change, unread
// count and last error; filtered by state (server side) and searched by
// name or URL within the page shown; paged with the API's cursors.
export function watchesView(container, subscribe) {
  const filters = { state: "", paused: "", search: "" };
  const cursors = [null];
  let page = 0;
  let watches = [];
  let nextCursor = null;

  const stateSelect = h("select", { id: "filter-state" },
    h("option", { value: "" }, "Any state"),
    ["ok", "failing", "pending"].map((state) => h("option", { value: state }, state)));
  const pausedSelect = h("select", { id: "filter-paused" },
    h("option", { value: "" }, "Paused or not"),
    h("option", { value: "false" }, "Active only"),
    h("option", { value: "true" }, "Paused only"));
  const searchInput = h("input", { id: "filter-search", type: "search", placeholder: "Name or URL" });
  const results = h("div", { "aria-busy": "false" });
  const previousButton = h("button", { type: "button" }, "Previous page");
  const nextButton = h("button", { type: "button" }, "Next page");
  const pageLabel = h("span", { class: "muted" });

  stateSelect.addEventListener("change", () => restart({ state: stateSelect.value }));
  pausedSelect.addEventListener("change", () => restart({ paused: pausedSelect.value }));
  searchInput.addEventListener("input", () => {
    filters.search = searchInput.value.trim().toLowerCase();
    render();
  });
  previousButton.addEventListener("click", () => {
    page -= 1;
    load();
  });
  nextButton.addEventListener("click", () => {
    cursors[page + 1] = nextCursor;
    page += 1;
    load();
  });

  function restart(change) {
    Object.assign(filters, change);
    cursors.length = 1;
    page = 0;
    load();
  }

  async function load() {
    results.setAttribute("aria-busy", "true");
    try {
      const answer = await get(`/v1/watches${query({ limit: PAGE_SIZE, cursor: cursors[page], state: filters.state, paused: filters.paused })}`);
      watches = answer.data;
      nextCursor = answer.next_cursor;
      render();
    } catch (error) {
      replace(results, notice("error", `The watches could not be loaded: ${error.message}`));
    } finally {
      results.setAttribute("aria-busy", "false");
    }
  }

  function render() {
    previousButton.disabled = page === 0;
    nextButton.disabled = !nextCursor;
    pageLabel.textContent = `Page ${page + 1}`;
    const shown = watches.filter((watch) => !filters.search
      || watch.name.toLowerCase().includes(filters.search) || watch.url.toLowerCase().includes(filters.search));
    if (shown.length === 0) {
      const filtered = filters.search || filters.state || filters.paused;
      replace(results, notice("empty", filtered ? "No watch matches these filters." : "No watches yet. Add one above."));
      return;
    }
    replace(results, h("table", { class: "rows", id: "watches-table" },
      h("caption", { class: "visually-hidden" }, "Watches"),
      h("thead", {}, h("tr", {}, ["Name", "State", "Last check", "Next check", "Last change", "Unread", "Last error"].map((title) => h("th", { scope: "col" }, title)))),
      h("tbody", {}, shown.map((watch) => h("tr", { "data-watch-id": watch.id },
        h("th", { scope: "row", "data-label": "Name" }, h("a", { href: `#/watches/${watch.id}` }, watch.name), h("div", { class: "muted url" }, watch.url)),
        h("td", { "data-label": "State" }, stateBadge(watch.state), watch.paused ? h("span", { class: "state state-paused" }, "paused") : null),
        h("td", { "data-label": "Last check" }, time(watch.last_checked_at)),
        h("td", { "data-label": "Next check" }, watch.paused ? h("span", { class: "muted" }, "paused") : time(watch.next_check_at)),
        h("td", { "data-label": "Last change" }, time(watch.last_changed_at)),
        h("td", { "data-label": "Unread", class: "number" }, String(watch.unread_count)),
        h("td", { "data-label": "Last error", class: "error-text" }, watch.last_error || "—"))))));
  }

  const urlInput = h("input", { id: "new-url", name: "url", type: "url", required: true, placeholder: "https://example.com/page" });
  const nameInput = h("input", { id: "new-name", name: "name", type: "text", maxlength: "200" });
  const cssInput = h("input", { id: "new-css", name: "css", type: "text", placeholder: "Optional, e.g. main .price" });
  const intervalInput = h("input", { id: "new-interval", name: "interval", type: "number", min: "1", max: "86400", placeholder: "300" });
  const formMessage = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "card", id: "new-watch" },
    h("h2", {}, "New watch"),
    h("div", { class: "fields" },
      h("div", {}, h("label", { for: "new-url" }, "URL"), urlInput),
      h("div", {}, h("label", { for: "new-name" }, "Name"), nameInput),
      h("div", {}, h("label", { for: "new-css" }, "CSS selector"), cssInput),
      h("div", {}, h("label", { for: "new-interval" }, "Check every (seconds)"), intervalInput)),
    h("button", { type: "submit" }, "Add watch"),
    formMessage);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { url: urlInput.value.trim() };
    if (nameInput.value.trim()) body.name = nameInput.value.trim();
    if (cssInput.value.trim()) body.extract = { css: cssInput.value.trim() };
    if (intervalInput.value) body.interval_seconds = Number(intervalInput.value);
    try {
      const watch = await post("/v1/watches", body);
      form.reset();
      replace(formMessage);
      toast(`Watching ${watch.name}.`);
      restart({});
    } catch (error) {
      replace(formMessage, notice("error", error.message));
    }
  });

  replace(container,
    h("h1", { tabindex: "-1" }, "Watches"),
    form,
    h("div", { class: "toolbar", role: "search" },
      h("label", { for: "filter-search" }, "Search"), searchInput,
      h("label", { for: "filter-state" }, "State"), stateSelect,
      h("label", { for: "filter-paused" }, "Paused"), pausedSelect),
    results,
    h("nav", { class: "pager", "aria-label": "Pages" }, previousButton, pageLabel, nextButton));
  subscribe((type) => {
    if (type !== "badge.updated") load();
  });
  load();
}
