import { get, patch, query } from "./api.js";
import { h, notice, replace, time, toast } from "./dom.js";

const RESOURCES = ["watches", "webhooks", "devices", "api_keys"];

// The admin's view: users with their limits and usage (a limit can be
// set or given back to the default), and the push apps. The API never
// returns a push app's private key or a user's API key, so none is shown.
export function adminView(container, subscribe) {
  const users = h("div", { id: "users" });
  const apps = h("div", { id: "push-apps" });
  const cursors = [null];
  let page = 0;
  const previousButton = h("button", { type: "button" }, "Previous page");
  const nextButton = h("button", { type: "button" }, "Next page");
  previousButton.addEventListener("click", () => { page -= 1; loadUsers(); });
  nextButton.addEventListener("click", () => { page += 1; loadUsers(); });

  async function loadUsers() {
    try {
      const answer = await get(`/v1/users${query({ limit: 25, cursor: cursors[page] })}`);
      cursors[page + 1] = answer.next_cursor;
      previousButton.disabled = page === 0;
      nextButton.disabled = !answer.next_cursor;
      replace(users, answer.data.length ? h("ul", { class: "cards" }, answer.data.map(renderUser)) : notice("empty", "No users yet. Create one with POST /v1/users."));
    } catch (error) {
      replace(users, notice("error", `The users could not be loaded: ${error.message}`));
    }
  }

  function renderUser(user) {
    const body = h("div", {});
    const details = h("details", { class: "card", "data-user-id": user.id },
      h("summary", {}, h("strong", {}, user.name), " ", h("span", { class: "muted" }, "since "), time(user.created_at)),
      body);
    details.addEventListener("toggle", async () => {
      if (!details.open) return;
      try {
        renderLimits(body, await get(`/v1/users/${user.id}`));
      } catch (error) {
        replace(body, notice("error", error.message));
      }
    });
    return h("li", {}, details);
  }

  function renderLimits(body, detail) {
    const inputs = {};
    const form = h("form", { class: "limits" },
      h("table", { class: "rows" },
        h("caption", {}, `Limits of ${detail.name}`),
        h("thead", {}, h("tr", {}, ["Resource", "In use", "Limit", "Own limit (empty: default)"].map((title) => h("th", { scope: "col" }, title)))),
        h("tbody", {}, RESOURCES.map((resource) => {
          const id = `limit-${detail.id}-${resource}`;
          inputs[resource] = h("input", { id, type: "number", min: "0", max: "1000000", value: detail.limit_overrides[resource] ?? "" });
          return h("tr", {},
            h("th", { scope: "row", "data-label": "Resource" }, resource.replace("_", " ")),
            h("td", { "data-label": "In use", class: "number" }, String(detail.usage[resource])),
            h("td", { "data-label": "Limit", class: "number" }, String(detail.limits[resource])),
            h("td", { "data-label": "Own limit" }, h("label", { for: id, class: "visually-hidden" }, `Own ${resource} limit`), inputs[resource]));
        }))),
      h("button", { type: "submit" }, "Save limits"));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const limits = {};
      for (const resource of RESOURCES) limits[resource] = inputs[resource].value === "" ? null : Number(inputs[resource].value);
      try {
        renderLimits(body, await patch(`/v1/users/${detail.id}`, { limits }));
        toast("Limits saved.");
      } catch (error) {
        toast(error.message);
      }
    });
    replace(body, form);
  }

  async function loadApps() {
    try {
      const answer = await get(`/v1/push-apps${query({ limit: 200 })}`);
      replace(apps, answer.data.length ? h("table", { class: "rows" },
        h("caption", { class: "visually-hidden" }, "Push apps"),
        h("thead", {}, h("tr", {}, ["App", "Platform", "Environment", "Credentials", "Updated"].map((title) => h("th", { scope: "col" }, title)))),
        h("tbody", {}, answer.data.map((app) => h("tr", {},
          h("th", { scope: "row", "data-label": "App" }, app.app_id),
          h("td", { "data-label": "Platform" }, app.platform),
          h("td", { "data-label": "Environment" }, app.environment || "—"),
          h("td", { "data-label": "Credentials" }, app.platform === "apns" ? `team ${app.team_id}, key ${app.key_id}` : `${app.client_email} (${app.project_id})`),
          h("td", { "data-label": "Updated" }, time(app.updated_at))))))
        : notice("empty", "No push apps. Devices get pushes once one is added with POST /v1/push-apps."));
    } catch (error) {
      replace(apps, notice("error", `The push apps could not be loaded: ${error.message}`));
    }
  }

  replace(container,
    h("h1", { tabindex: "-1" }, "Admin"),
    h("section", { "aria-labelledby": "users-heading" }, h("h2", { id: "users-heading" }, "Users"), users,
      h("nav", { class: "pager", "aria-label": "User pages" }, previousButton, nextButton)),
    h("section", { "aria-labelledby": "apps-heading" }, h("h2", { id: "apps-heading" }, "Push apps"), apps));
  subscribe((type) => {
    if (type === "poll") loadApps();
  });
  loadUsers();
  loadApps();
}
