import { get, query } from "./api.js";
import { h, notice, replace, time } from "./dom.js";

// The caller's devices; opening one lists the pushes sent to it. Push
// tokens address a device, so only their start is shown.
export function devicesView(container, subscribe) {
  const list = h("div", { id: "devices" });

  async function load() {
    try {
      const answer = await get(`/v1/devices${query({ limit: 200 })}`);
      if (answer.data.length === 0) {
        replace(list, notice("empty", "No devices registered. Apps register with POST /v1/devices."));
        return;
      }
      replace(list, h("ul", { class: "cards" }, answer.data.map(renderDevice)));
    } catch (error) {
      replace(list, notice("error", `The devices could not be loaded: ${error.message}`));
    }
  }

  function renderDevice(device) {
    const pushes = h("div", { "aria-live": "polite" }, notice("empty", "Loading pushes…"));
    const details = h("details", { class: "card", "data-device-id": device.id },
      h("summary", {}, h("strong", {}, device.name || `${device.platform} device`), " ",
        h("span", { class: "muted" }, `${device.platform}${device.app_id ? ` · ${device.app_id}` : ""} · token ${device.push_token.slice(0, 10)}…`)),
      h("p", {}, "Last seen ", time(device.last_seen_at)),
      pushes);
    details.addEventListener("toggle", async () => {
      if (!details.open) return;
      try {
        const answer = await get(`/v1/devices/${device.id}/pushes${query({ limit: 50 })}`);
        replace(pushes, answer.data.length ? h("table", { class: "rows" },
          h("caption", { class: "visually-hidden" }, "Pushes"),
          h("thead", {}, h("tr", {}, ["Created", "Kind", "Status", "Badge", "Attempts", "Reason"].map((title) => h("th", { scope: "col" }, title)))),
          h("tbody", {}, answer.data.map((push) => h("tr", {},
            h("td", { "data-label": "Created" }, time(push.created_at)),
            h("td", { "data-label": "Kind" }, push.kind),
            h("td", { "data-label": "Status" }, h("span", { class: `state state-${push.status}` }, push.status)),
            h("td", { "data-label": "Badge", class: "number" }, push.badge ?? "—"),
            h("td", { "data-label": "Attempts", class: "number" }, String(push.attempt_count)),
            h("td", { "data-label": "Reason", class: "error-text" }, push.reason || "—")))))
          : notice("empty", "No pushes to this device yet."));
      } catch (error) {
        replace(pushes, notice("error", `The pushes could not be loaded: ${error.message}`));
      }
    });
    return h("li", {}, details);
  }

  replace(container, h("h1", { tabindex: "-1" }, "Devices"), list);
  subscribe((type) => {
    if (type === "device.invalidated" || type === "poll") load();
  });
  load();
}
