import { h } from "./dom.js";

// Turns the stored unified diff into lines a person reads: hunks as a
// quiet separator, added and removed lines marked by colour, a sign the
// screen reader speaks, and text; file headers dropped.
export function parseDiff(text) {
  const lines = [];
  for (const line of (text || "").split("\n")) {
    if (line.startsWith("+++") || line.startsWith("---")) continue;
    if (line.startsWith("@@")) lines.push({ kind: "hunk", text: "" });
    else if (line.startsWith("+")) lines.push({ kind: "added", text: line.slice(1) });
    else if (line.startsWith("-")) lines.push({ kind: "removed", text: line.slice(1) });
    else if (line === "...") lines.push({ kind: "cut", text: "(the rest of this diff was cut)" });
    else if (line.startsWith(" ")) lines.push({ kind: "context", text: line.slice(1) });
    else if (line.length > 0) lines.push({ kind: "context", text: line });
  }
  return lines;
}

const SIGNS = { added: "+", removed: "−", context: " ", hunk: "⋯", cut: "⋯" };
const SPOKEN = { added: "added", removed: "removed", context: "", hunk: "", cut: "" };

export function renderDiff(text) {
  const lines = parseDiff(text);
  const added = lines.filter((line) => line.kind === "added").length;
  const removed = lines.filter((line) => line.kind === "removed").length;
  return h("figure", { class: "diff" },
    h("figcaption", {}, `${added} line${added === 1 ? "" : "s"} added, ${removed} removed`),
    h("ol", { class: "diff-lines" },
      lines.map((line) => h("li", { class: `diff-${line.kind}` },
        h("span", { class: "diff-sign", "aria-hidden": "true" }, SIGNS[line.kind]),
        SPOKEN[line.kind] ? h("span", { class: "visually-hidden" }, `${SPOKEN[line.kind]}: `) : null,
        h("span", { class: "diff-text" }, line.text || "\u00a0")))));
}
