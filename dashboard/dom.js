// Builds elements from text only: nothing from the API is ever parsed as
// HTML, so a watch's name or a diff line cannot inject markup.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      element.className = value;
    } else if (value === true) {
      element.setAttribute(name, "");
    } else {
      element.setAttribute(name, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.appendChild(child);
    else element.appendChild(document.createTextNode(String(child)));
  }
}

export function replace(container, ...children) {
  container.replaceChildren();
  append(container, children);
}

export function time(iso) {
  if (!iso) return h("span", { class: "muted" }, "never");
  const date = new Date(iso);
  return h("time", { datetime: iso, title: date.toISOString() }, relative(date));
}

export function relative(date, now = Date.now()) {
  const seconds = Math.round((date.getTime() - now) / 1000);
  const magnitude = Math.abs(seconds);
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  if (magnitude < 60) return format.format(seconds, "second");
  if (magnitude < 3600) return format.format(Math.round(seconds / 60), "minute");
  if (magnitude < 86400) return format.format(Math.round(seconds / 3600), "hour");
  return format.format(Math.round(seconds / 86400), "day");
}

export function stateBadge(state) {
  return h("span", { class: `state state-${state}` }, state);
}

// A message for an empty list or a failed load, announced to screen readers.
export function notice(kind, text) {
  return h("p", { class: `notice notice-${kind}`, role: kind === "error" ? "alert" : null }, text);
}

export function toast(text) {
  const element = document.getElementById("toast");
  element.textContent = text;
  element.classList.add("shown");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => element.classList.remove("shown"), 4000);
}

// A button that runs `action`, disabled while it runs, reporting failures.
export function actionButton(label, action, attributes = {}) {
  const button = h("button", { type: "button", ...attributes }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await action();
    } catch (error) {
      toast(error.message);
    } finally {
      button.disabled = false;
    }
  });
  return button;
}
