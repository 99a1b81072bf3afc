import { APIError, call } from "./api.js";
import { actionButton, h, notice, replace } from "./dom.js";

const TYPES = { json: "application/json", zip: "application/zip", yaml: "application/yaml", yml: "application/yaml", opml: "text/x-opml", xml: "application/xml" };

// Sends a chosen file's bytes to POST /v1/imports: first with
// ?dry_run=true to show what would be created and what cannot be
// mapped, then for real.
export function importView(container) {
  const input = h("input", { id: "import-file", type: "file", accept: ".json,.zip,.yaml,.yml,.opml,.xml", "aria-describedby": "import-help" });
  const result = h("div", { id: "import-result", "aria-live": "polite" });
  const importButton = actionButton("Import", () => send(false), { id: "import-commit", disabled: true });
  const previewButton = actionButton("Preview", () => send(true), { id: "import-preview" });
  input.addEventListener("change", () => {
    importButton.disabled = true;
    replace(result);
  });

  async function send(dryRun) {
    const file = input.files[0];
    if (!file) {
      replace(result, notice("error", "Choose a file first."));
      return;
    }
    const extension = file.name.split(".").pop().toLowerCase();
    const raw = { bytes: await file.arrayBuffer(), type: file.type || TYPES[extension] || "application/octet-stream" };
    try {
      const answer = await call("POST", `/v1/imports${dryRun ? "?dry_run=true" : ""}`, { raw });
      render(answer);
      importButton.disabled = !dryRun || answer.created.length === 0;
    } catch (error) {
      importButton.disabled = true;
      replace(result, notice("error", error instanceof APIError && error.status === 404
        ? "This server does not take imports yet."
        : `The import was refused: ${error.message}`));
    }
  }

  function render(answer) {
    const verb = answer.dry_run ? "Would create" : "Created";
    replace(result,
      h("h2", {}, answer.dry_run ? "Preview" : "Imported"),
      h("p", {}, `Format: ${answer.format}. ${verb} ${answer.created.length} watch${answer.created.length === 1 ? "" : "es"}; ${answer.existing} already watched; ${answer.rejected.length} cannot be mapped.`),
      answer.created.length ? h("ul", { class: "cards" }, answer.created.map((watch) => h("li", { class: "card" },
        watch.id && !answer.dry_run ? h("a", { href: `#/watches/${watch.id}` }, watch.name || watch.url) : h("strong", {}, watch.name || watch.url),
        h("div", { class: "muted url" }, watch.url)))) : null,
      answer.rejected.length ? h("table", { class: "rows", id: "import-rejected" },
        h("caption", {}, "Entries that cannot be mapped"),
        h("thead", {}, h("tr", {}, ["Entry", "URL", "Reason"].map((title) => h("th", { scope: "col" }, title)))),
        h("tbody", {}, answer.rejected.map((entry) => h("tr", {},
          h("td", { "data-label": "Entry", class: "number" }, String(entry.index)),
          h("td", { "data-label": "URL", class: "url" }, entry.url ?? "—"),
          h("td", { "data-label": "Reason" }, entry.reason))))) : null);
  }

  replace(container,
    h("h1", { tabindex: "-1" }, "Import"),
    h("section", { class: "card" },
      h("label", { for: "import-file" }, "File to import"),
      input,
      h("p", { id: "import-help", class: "muted" }, "changedetection.io's url-watches.json or backup zip, urlwatch's urls.yaml, an OPML feed list, or a Tidings export. Preview first: nothing is created until you import, and an import is all or nothing."),
      h("div", { class: "actions" }, previewButton, importButton)),
    result);
}
