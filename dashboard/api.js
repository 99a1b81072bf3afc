import { credential } from "./session.js";

// Sent on window when the session's credential is refused (401).
export const SIGNED_OUT_EVENT = "tidings-credential-refused";

// A failed call: the problem document's title and detail, and its status.
export class APIError extends Error {
  constructor(status, problem) {
    const detail = problem?.detail || problem?.title || `The server answered ${status}.`;
    super(problem?.field && !detail.includes(problem.field) ? `${detail} (${problem.field})` : detail);
    this.status = status;
    this.problem = problem;
  }
}

// Calls the API on this origin with the session's credential in the
// Authorization header (never in the URL). `body` is sent as JSON unless
// `raw` gives bytes and their type.
export async function call(method, path, { body, raw, token } = {}) {
  const headers = { Accept: "application/json" };
  const secret = token ?? credential();
  if (secret) headers.Authorization = `Bearer ${secret}`;
  let payload;
  if (raw) {
    payload = raw.bytes;
    headers["Content-Type"] = raw.type || "application/octet-stream";
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body: payload, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" });
  } catch {
    throw new APIError(0, { detail: "Tidings cannot be reached." });
  }
  const text = await response.text();
  let parsed = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (response.status === 401 && !token) window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
  if (!response.ok) throw new APIError(response.status, parsed);
  return parsed;
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, { body });
export const patch = (path, body) => call("PATCH", path, { body });

export function query(parameters) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}
