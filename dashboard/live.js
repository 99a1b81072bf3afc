import { call } from "./api.js";
import { role } from "./session.js";

// Keeps the open view current. A user's page follows the event stream
// (GET /v1/events, with a one-time token from POST /v1/events/tokens
// since EventSource cannot send an Authorization header, so the key never
// goes into the URL); when the stream cannot be had, and for the admin,
// it polls every POLL_SECONDS while the tab is visible.

const EVENT_TYPES = ["watch.changed", "watch.failing", "watch.recovered", "badge.updated", "webhook.disabled", "device.invalidated", "stream.resync"];
const POLL_SECONDS = 15;
const listeners = new Set();
let source = null;
let pollTimer = null;
let retryTimer = null;
let lastEventID = null;
let failures = 0;
let running = false;

export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function publish(type, data) {
  for (const listener of [...listeners]) listener(type, data);
}

function status(text) {
  document.getElementById("live-status").textContent = text;
}

export function start() {
  running = true;
  failures = 0;
  if (role() === "user" && typeof EventSource === "function") connect();
  else poll();
}

export function stop() {
  running = false;
  source?.close();
  source = null;
  clearTimeout(retryTimer);
  clearInterval(pollTimer);
  pollTimer = null;
  lastEventID = null;
  listeners.clear();
  status("");
}

async function connect() {
  let token;
  try {
    ({ token } = await call("POST", "/v1/events/tokens"));
  } catch {
    return fallBack();
  }
  if (!running) return;
  const after = lastEventID ? `&after=${encodeURIComponent(lastEventID)}` : "";
  source = new EventSource(`/v1/events?token=${encodeURIComponent(token)}${after}`);
  source.addEventListener("open", () => {
    failures = 0;
    clearInterval(pollTimer);
    pollTimer = null;
    status("Live");
  });
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      lastEventID = message.lastEventId || lastEventID;
      let data = null;
      try {
        data = JSON.parse(message.data);
      } catch {
        data = null;
      }
      publish(type, data);
    });
  }
  source.addEventListener("error", () => {
    // The token was for one connection: reconnect with a new one, after
    // a pause that grows, polling meanwhile.
    source?.close();
    source = null;
    failures += 1;
    if (!running) return;
    fallBack();
    retryTimer = setTimeout(connect, Math.min(60, 2 ** failures) * 1000);
  });
}

function fallBack() {
  if (!running) return;
  poll();
}

function poll() {
  status(`Updating every ${POLL_SECONDS} s`);
  if (pollTimer) return;
  pollTimer = setInterval(() => {
    if (!document.hidden) publish("poll", null);
  }, POLL_SECONDS * 1000);
}
