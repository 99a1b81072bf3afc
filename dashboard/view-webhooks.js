import { get, post, query } from "./api.js";
import { actionButton, h, notice, replace, time, toast } from "./dom.js";

// Webhooks (the admin's global ones for the admin) and, for the one
// chosen, its deliveries with their latest attempts; a failed delivery
// can be retried, and failed deliveries since a time recovered.
// Deliveries raise no events, so this view also refreshes on the poll.
export function webhooksView(container, subscribe, role) {
  const base = role === "admin" ? "/v1/admin" : "/v1";
  const list = h("div", { id: "webhooks" });
  const deliveries = h("section", { id: "deliveries" });
  const rows = h("div", { id: "delivery-rows" });
  const statusSelect = h("select", { id: "delivery-status" },
    h("option", { value: "" }, "Any status"),
    ["pending", "succeeded", "failed"].map((status) => h("option", { value: status }, status)));
  let chosen = null;

  async function loadWebhooks() {
    try {
      const answer = await get(`${base}/webhooks${query({ limit: 200 })}`);
      if (answer.data.length === 0) {
        replace(list, notice("empty", "No webhooks yet. Create one with POST /v1/webhooks; its secret is shown only then."));
        return;
      }
      replace(list, h("ul", { class: "cards" }, answer.data.map((webhook) => h("li", { class: "card" },
        h("h2", {}, h("span", { class: "url" }, webhook.url)),
        h("p", {}, webhook.enabled ? h("span", { class: "state state-ok" }, "enabled") : h("span", { class: "state state-failing" }, "disabled"),
          " ", webhook.event_types.join(", ")),
        webhook.disabled_reason ? h("p", { class: "error-text" }, webhook.disabled_reason) : null,
        h("button", { type: "button", "data-webhook-id": webhook.id, "aria-pressed": String(chosen?.id === webhook.id), onclick: () => choose(webhook) }, "Deliveries")))));
      if (!chosen) choose(answer.data[0]);
    } catch (error) {
      replace(list, notice("error", `The webhooks could not be loaded: ${error.message}`));
    }
  }

  // Choosing a webhook builds its section once; the timer below refreshes
  // only the rows, so a date being typed or a focused control survives it.
  function choose(webhook) {
    chosen = webhook;
    for (const button of list.querySelectorAll("button[data-webhook-id]")) button.setAttribute("aria-pressed", String(button.dataset.webhookId === webhook.id));
    const since = h("input", { id: "recover-since", type: "datetime-local", required: true });
    const hourAgo = new Date(Date.now() - 3600_000);
    since.value = new Date(hourAgo.getTime() - hourAgo.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    const recover = h("form", { class: "toolbar", id: "recover" },
      h("label", { for: "recover-since" }, "Send failed deliveries again since"), since,
      h("button", { type: "submit" }, "Recover"));
    recover.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const answer = await post(`${base}/webhooks/${webhook.id}/recover`, { since: new Date(since.value).toISOString() });
        toast(`${answer.requeued} deliver${answer.requeued === 1 ? "y" : "ies"} queued again.`);
        loadDeliveries();
      } catch (error) {
        toast(error.message);
      }
    });
    replace(deliveries,
      h("h2", {}, "Deliveries to ", h("span", { class: "url" }, webhook.url)),
      h("div", { class: "toolbar" }, h("label", { for: "delivery-status" }, "Status"), statusSelect),
      recover, rows);
    loadDeliveries();
  }

  async function loadDeliveries() {
    if (!chosen) return;
    const webhook = chosen;
    try {
      const answer = await get(`${base}/webhooks/${webhook.id}/deliveries${query({ limit: 50, status: statusSelect.value })}`);
      if (webhook !== chosen) return;
      replace(rows, answer.data.length
        ? h("ul", { class: "cards" }, answer.data.map(renderDelivery))
        : notice("empty", statusSelect.value ? `No ${statusSelect.value} deliveries.` : "Nothing delivered to this webhook yet."));
    } catch (error) {
      replace(rows, notice("error", `The deliveries could not be loaded: ${error.message}`));
    }
  }

  function renderDelivery(delivery) {
    return h("li", { class: "card delivery", "data-delivery-id": delivery.id, "data-status": delivery.status },
      h("h3", {}, h("span", { class: `state state-${delivery.status}` }, delivery.status), " ", delivery.event_type, " ", time(delivery.created_at)),
      h("p", {}, `${delivery.attempt_count} attempt${delivery.attempt_count === 1 ? "" : "s"}`,
        delivery.next_attempt_at ? [", next ", time(delivery.next_attempt_at)] : null,
        delivery.last_error ? h("span", { class: "error-text" }, ` — ${delivery.last_error}`) : null),
      delivery.attempts.length ? h("table", { class: "attempts" },
        h("caption", { class: "visually-hidden" }, "Attempts"),
        h("thead", {}, h("tr", {}, ["When", "Status", "Time", "Error or answer"].map((title) => h("th", { scope: "col" }, title)))),
        h("tbody", {}, delivery.attempts.map((attempt) => h("tr", {},
          h("td", { "data-label": "When" }, time(attempt.attempted_at)),
          h("td", { "data-label": "Status" }, attempt.status_code ?? "—"),
          h("td", { "data-label": "Time" }, `${attempt.duration_ms} ms`),
          h("td", { "data-label": "Error or answer", class: "wrap" }, attempt.error || attempt.response_body || "—"))))) : null,
      delivery.status === "failed" ? actionButton("Retry", async () => {
        await post(`${base}/deliveries/${delivery.id}/retry`);
        toast("Queued again.");
        loadDeliveries();
      }, { "data-retry": delivery.id }) : null);
  }

  statusSelect.addEventListener("change", loadDeliveries);
  replace(container, h("h1", { tabindex: "-1" }, role === "admin" ? "Global webhooks" : "Webhooks"), list, deliveries);
  // Retries and attempts happen without an event: refresh on a timer
  // while the tab is visible, whether or not the stream is up.
  const refresh = setInterval(() => {
    if (!document.hidden && container.isConnected) loadDeliveries();
    else if (!container.isConnected) clearInterval(refresh);
  }, 5000);
  subscribe((type) => {
    if (type === "webhook.disabled" || type === "poll") loadWebhooks();
  });
  loadWebhooks();
}
