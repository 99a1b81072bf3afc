import { APIError, SIGNED_OUT_EVENT, call } from "./api.js";
import { h, notice, replace } from "./dom.js";
import * as live from "./live.js";
import { credential, forget, remember, role } from "./session.js";
import { adminView } from "./view-admin.js";
import { badgeView } from "./view-badge.js";
import { devicesView } from "./view-devices.js";
import { importView } from "./view-import.js";
import { watchView } from "./view-watch.js";
import { watchesView } from "./view-watches.js";
import { webhooksView } from "./view-webhooks.js";

// Hash routes (the fragment never leaves the browser): #/watches,
// #/watches/<id>, #/webhooks, #/devices, #/badge, #/import, #/admin.
const ROUTES = {
  user: [
    ["watches", "Watches", watchesView],
    ["webhooks", "Webhooks", webhooksView],
    ["devices", "Devices", devicesView],
    ["badge", "Badge", badgeView],
    ["import", "Import", importView],
  ],
  admin: [
    ["admin", "Admin", adminView],
    ["webhooks", "Global webhooks", webhooksView],
  ],
};

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const signOutButton = document.getElementById("sign-out");
let unmount = null;

function signInView() {
  const input = h("input", { id: "credential", name: "credential", type: "password", autocomplete: "off", required: true, spellcheck: "false", "aria-describedby": "credential-help" });
  const message = h("div", { "aria-live": "assertive" });
  const form = h("form", { class: "card sign-in", novalidate: true },
    h("h1", { tabindex: "-1" }, "Sign in to Tidings"),
    h("label", { for: "credential" }, "API key or admin token"),
    input,
    h("p", { id: "credential-help", class: "muted" }, "Kept in this tab only, and forgotten when you sign out or close it."),
    h("button", { type: "submit" }, "Sign in"),
    message);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) {
      replace(message, notice("error", "Enter a key."));
      return;
    }
    try {
      remember(token, await identify(token));
      input.value = "";
      start();
    } catch (error) {
      replace(message, notice("error", error.status === 401 ? "That key was not accepted." : error.message));
      input.focus();
    }
  });
  replace(main, form);
  input.focus();
}

// A user key answers GET /v1/me; the admin token is refused there (403)
// and answers GET /v1/users.
async function identify(token) {
  try {
    await call("GET", "/v1/me", { token });
    return "user";
  } catch (error) {
    if (!(error instanceof APIError) || error.status !== 403) throw error;
  }
  await call("GET", "/v1/users?limit=1", { token });
  return "admin";
}

function start() {
  nav.hidden = false;
  signOutButton.hidden = false;
  const routes = ROUTES[role()] || ROUTES.user;
  replace(nav, h("ul", {}, routes.map(([name, label]) => h("li", {}, h("a", { href: `#/${name}`, "data-route": name }, label)))));
  live.start();
  if (!location.hash.startsWith("#/")) location.hash = `#/${routes[0][0]}`;
  else route();
}

function signOut() {
  forget();
  live.stop();
  unmount?.();
  unmount = null;
  nav.hidden = true;
  signOutButton.hidden = true;
  replace(nav);
  history.replaceState(null, "", location.pathname);
  signInView();
}

function route() {
  if (!credential()) return signInView();
  if (!location.hash.startsWith("#/")) return;
  const routes = ROUTES[role()] || ROUTES.user;
  const [name, id] = location.hash.slice(2).split("/");
  unmount?.();
  unmount = null;
  let view = routes.find(([routeName]) => routeName === name);
  if (name === "watches" && id && role() === "user") view = ["watches", "Watch", (container, subscribe) => watchView(container, subscribe, decodeURIComponent(id))];
  for (const link of nav.querySelectorAll("a")) {
    if (link.dataset.route === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const container = h("div", { class: "view" });
  replace(main, container);
  if (!view) {
    replace(container, h("h1", { tabindex: "-1" }, "Not found"), notice("error", "There is no such page here."));
    return;
  }
  const subscriptions = [];
  unmount = () => subscriptions.forEach((unsubscribe) => unsubscribe());
  view[2](container, (listener) => subscriptions.push(live.subscribe(listener)), role());
  document.title = `${view[1]} · Tidings`;
  // Move focus to the new heading so screen readers announce the view.
  requestAnimationFrame(() => container.querySelector("h1")?.focus());
}

signOutButton.addEventListener("click", signOut);
// The skip link moves focus without touching the route in the fragment.
document.querySelector(".skip").addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});
window.addEventListener("hashchange", route);
// A revoked key (any 401 to a call with the session's credential) signs
// out, saying why.
window.addEventListener(SIGNED_OUT_EVENT, () => {
  if (!credential()) return;
  signOut();
  main.querySelector("[aria-live]")?.replaceChildren(notice("error", "The key is no longer accepted; sign in again."));
});
if (credential()) start();
else signInView();
