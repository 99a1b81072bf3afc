import { get, post, query } from "./api.js";
import { actionButton, h, notice, replace, time, toast } from "./dom.js";

// The caller's unread total across devices, the unread changes behind
// it, and read-all.
export function badgeView(container, subscribe) {
  const count = h("p", { class: "badge-count", id: "badge-count", "aria-live": "polite" }, "…");
  const unread = h("div", { id: "unread" });

  async function load() {
    try {
      const feed = await get(`/v1/changes${query({ unread: "true", limit: 50 })}`);
      count.textContent = String(feed.badge.count);
      replace(unread, feed.data.length ? h("ul", { class: "cards" }, feed.data.map((change) => h("li", { class: "card" },
        h("a", { href: `#/watches/${change.watch_id}` }, change.watch_name), " ", time(change.detected_at))))
        : notice("empty", "Nothing unread."));
    } catch (error) {
      replace(unread, notice("error", `The badge could not be loaded: ${error.message}`));
    }
  }

  replace(container,
    h("h1", { tabindex: "-1" }, "Badge"),
    h("section", { class: "card" }, h("h2", {}, "Unread changes"), count,
      actionButton("Mark everything read", async () => {
        const badge = await post("/v1/badge/read-all");
        count.textContent = String(badge.count);
        toast("Everything is read.");
        load();
      }, { id: "read-all" })),
    unread);
  subscribe(() => load());
  load();
}
