extension StudioAssets {
  // Stored text reaches the page only through `textContent` and attribute values set with
  // `setAttribute`/properties: never through `innerHTML`, so `<script>` in a name is text.
  static let script = #"""
    "use strict";
    const state = { store: null, models: [], view: null, live: new Set(), token: 0, following: null, notice: null, renders: 0 };
    const OPERATORS = ["==", "!=", "<", "<=", ">", ">=", "contains", "starts with", "is nil", "is not nil"];
    const REFERENCE_DATE = 978307200;

    function el(tag, attributes, ...children) {
      const node = document.createElement(tag);
      for (const [name, value] of Object.entries(attributes || {})) {
        if (value === undefined || value === null || value === false) continue;
        if (name === "onclick" || name === "onchange" || name === "onsubmit" || name === "oninput") {
          node[name] = value;
        } else if (name === "className") {
          node.className = value;
        } else {
          node.setAttribute(name, String(value));
        }
      }
      for (const child of children.flat(Infinity)) {
        if (child === undefined || child === null || child === false) continue;
        node.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
      return node;
    }

    async function api(path, parameters) {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(parameters || {})) {
        if (value !== undefined && value !== null && value !== "") query.set(name, value);
      }
      const response = await fetch(path + (query.toString() ? "?" + query : ""), {
        credentials: "same-origin", headers: { "Accept": "application/json" } });
      const text = await response.text();
      let body;
      try { body = JSON.parse(text); } catch (error) { body = { error: text }; }
      if (!response.ok) throw new Error(body.error || ("HTTP " + response.status));
      return body;
    }

    function modelNamed(name) { return state.models.find((model) => model.name === name); }

    function routeLink(parts, parameters) {
      const path = "#/" + parts.map(encodeURIComponent).join("/");
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(parameters || {})) {
        if (value !== undefined && value !== null && value !== "" && value !== false) query.set(name, value);
      }
      return path + (query.toString() ? "?" + query : "");
    }

    function parseRoute() {
      const hash = location.hash.replace(/^#\/?/, "");
      const [path, query] = hash.split("?");
      const parts = path ? path.split("/").map(decodeURIComponent) : [];
      return { parts, parameters: Object.fromEntries(new URLSearchParams(query || "")) };
    }

    // Typed display of one stored value.
    function cellContent(cell, column) {
      if (cell.nil) return { node: el("span", { className: "nil", title: "nil (NULL)" }, "nil"), kind: "nil" };
      if ("text" in cell) {
        if (cell.text === "") return { node: el("span", { className: "empty", title: "empty text" }, "empty"), kind: "text" };
        return { node: document.createTextNode(cell.text), kind: "text", title: cell.text };
      }
      if ("int" in cell) return { node: document.createTextNode(cell.int), kind: "number" };
      if ("real" in cell) return { node: document.createTextNode(cell.real), kind: "number" };
      if ("bool" in cell) return { node: document.createTextNode(String(cell.bool)), kind: "bool" };
      if ("date" in cell) {
        const date = new Date(cell.date * 1000);
        return { node: el("time", { datetime: date.toISOString() }, date.toLocaleString()), kind: "date", title: cell.stored };
      }
      if ("uuid" in cell) return { node: document.createTextNode(cell.uuid), kind: "uuid", title: cell.uuid };
      if ("url" in cell) return { node: document.createTextNode(cell.url), kind: "url", title: cell.url };
      if ("json" in cell) return { node: document.createTextNode(cell.json), kind: "json", title: cell.json };
      if ("bytes" in cell) {
        const more = cell.bytes > 32 ? "…" : "";
        return { node: document.createTextNode(cell.bytes + " bytes " + cell.hex + more), kind: "bytes", title: cell.hex + more };
      }
      return { node: document.createTextNode("?"), kind: "text" };
    }

    function keyText(cell) {
      if ("text" in cell) return cell.text;
      if ("int" in cell) return cell.int;
      if ("uuid" in cell) return cell.uuid;
      return "";
    }

    // A stored key as the key token the API takes (see RowCursor.keyToken).
    function keyToken(cell) {
      if ("int" in cell) return "i" + cell.int;
      const text = "text" in cell ? cell.text : "uuid" in cell ? cell.uuid : null;
      if (text === null) return null;
      const bytes = new TextEncoder().encode(text);
      let binary = "";
      for (const byte of bytes) binary += String.fromCharCode(byte);
      return "t" + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    }

    function valueCell(cell, column, model) {
      const shown = cellContent(cell, column);
      const td = el("td", { className: shown.kind, "data-column": column.name, title: shown.title });
      const reference = model && model.references.find((item) => item.property === column.name);
      const token = reference && !cell.nil ? keyToken(cell) : null;
      if (token) {
        td.append(el("a", { href: routeLink(["row", reference.model, token]), className: "reference",
          title: reference.model + " " + keyText(cell) }, shown.node));
      } else {
        td.append(shown.node);
      }
      return td;
    }

    function showError(container, error) {
      container.append(el("div", { className: "error", role: "alert" }, error.message || String(error)));
    }

    async function loadStore() {
      state.store = await api("/api/models");
      state.models = state.store.models;
      document.getElementById("store-name").textContent = state.store.location;
      document.getElementById("mode").textContent = state.store.writable ? "writable" : "read-only";
      drawNavigation();
    }

    function drawNavigation() {
      const nav = document.getElementById("models");
      const route = parseRoute();
      nav.replaceChildren(...[
        el("a", { href: "#/", className: route.parts.length === 0 ? "current" : "" }, "Models"),
        el("a", { href: "#/history", id: "nav-history", className: route.parts[0] === "history" ? "current" : "" }, "History"),
        state.store.app ? el("a", { href: "#/app", id: "nav-app", className: route.parts[0] === "app" ? "current" : "" }, "App: " + state.store.app) : null,
        state.store.synced ? el("a", { href: "#/sync", id: "nav-sync", className: route.parts[0] === "sync" ? "current" : "" }, "Sync") : null,
        state.store.syncServer ? el("a", { href: "#/sync-server", id: "nav-sync-server", className: route.parts[0] === "sync-server" ? "current" : "" }, "Sync server") : null,
        el("h3", {}, "Rows"),
        ...state.models.map((model) => el("a", {
          href: routeLink(["rows", model.name]), "data-model": model.name,
          className: (route.parts[0] === "rows" || route.parts[0] === "row") && route.parts[1] === model.name ? "current" : "" },
          el("span", {}, model.name), el("span", { className: "count" }, model.rows.toLocaleString())))].filter((node) => node));
    }

    async function render() {
      const main = document.getElementById("main");
      const route = parseRoute();
      // Renders overlap (a route change while a live change event redraws): only the latest
      // one may draw, show an error or place the notice.
      const generation = ++state.renders;
      state.view = null;
      closeFollowing();
      drawNavigation();
      try {
        if (route.parts[0] === "rows" && route.parts[1]) await drawRows(main, route.parts[1], route.parameters);
        else if (route.parts[0] === "row" && route.parts[1]) await drawRow(main, route.parts[1], route.parts[2]);
        else if (route.parts[0] === "history") await drawHistory(main);
        else if (route.parts[0] === "app") await drawApp(main);
        else if (route.parts[0] === "sync") await drawSync(main);
        else if (route.parts[0] === "sync-server" || (route.parts.length === 0 && state.store.syncServer)) await drawSyncServer(main);
        else drawOverview(main);
        if (generation !== state.renders) return;
        // The notice of a save stays on the view it led to, through redraws (the save's own
        // live change event redraws it), until another view is opened.
        if (state.notice && state.notice.hash === location.hash) main.prepend(state.notice.node);
        else state.notice = null;
      } catch (error) {
        if (generation !== state.renders) return;
        main.replaceChildren(el("h1", {}, "Kura Studio"));
        showError(main, error);
      }
    }

    function drawOverview(main) {
      const store = state.store;
      const history = store.history;
      const facts = el("dl", { className: "facts" },
        el("dt", {}, "Engine"), el("dd", {}, store.engine === "sqlite" ? "SQLite" : "PostgreSQL"),
        el("dt", {}, "Location"), el("dd", { className: "mono" }, store.location),
        el("dt", {}, "Size"), el("dd", {}, store.sizeBytes.toLocaleString() + " bytes"),
        el("dt", {}, "Schema version"), el("dd", { id: "schema-version" }, store.schemaVersion === null || store.schemaVersion === undefined ? "none (not made by Kura)" : String(store.schemaVersion)),
        el("dt", {}, "History"), el("dd", { id: "history-summary" }, history
          ? history.count.toLocaleString() + " change sets kept (tokens " + (history.oldest ?? "–") + "–" + history.latest + ")"
            + (history.trimmedThrough > 0 ? "; trimmed through token " + history.trimmedThrough : "; never trimmed")
            + (history.oldestDate ? "; oldest saved " + new Date(history.oldestDate * 1000).toLocaleString() : "")
            + ". Each app keeps what its historyRetention says (by default 7 days, at most 10,000 saves)."
          : "none"),
        el("dt", {}, "Integrity"), el("dd", {}, el("button", { id: "check", onclick: runCheck }, "Check"), " ", el("span", { id: "check-result" })));
      main.replaceChildren(el("h1", {}, "Models"), el("div", { className: "card" }, facts),
        ...state.models.map(drawModelCard));
    }

    async function runCheck() {
      const result = document.getElementById("check-result");
      result.textContent = "checking…";
      try {
        const answer = await api("/api/check");
        result.textContent = answer.problems.length === 0 ? "ok: no problem found" : answer.problems.join(" · ");
        result.className = answer.problems.length === 0 ? "" : "error";
      } catch (error) {
        result.textContent = error.message;
        result.className = "error";
      }
    }

    function drawModelCard(model) {
      const rows = model.columns.map((column) => el("tr", {},
        el("td", { className: "mono" }, column.name),
        el("td", {}, column.kind), el("td", { className: "mono" }, column.type),
        el("td", {}, column.isOptional ? "optional" : "required"),
        el("td", {}, column.isPrimaryKey ? "primary key" : column.isUnique ? "unique" : "")));
      return el("section", { className: "card", id: "model-" + model.name },
        el("h2", {}, el("a", { href: routeLink(["rows", model.name]) }, model.name), " ",
          el("span", { className: "kind" }, "table " + model.table + " · " + model.rows.toLocaleString() + (model.rows === 1 ? " row" : " rows"))),
        el("table", { className: "schema" },
          el("thead", {}, el("tr", {}, ["Property", "Kind", "Type", "Optionality", "Key"].map((name) => el("th", {}, name)))),
          el("tbody", {}, rows)),
        model.indexes.length ? el("p", {}, "Indexes: ", model.indexes.map((index, number) =>
          el("span", { className: "mono" }, (number ? ", " : "") + index.name + " (" + index.columns.join(", ") + ")" + (index.unique ? " unique" : "")))) : null,
        model.searchable.length ? el("p", {}, "Full-text search on " + model.searchable.join(", ")) : null,
        model.references.length ? el("p", {}, "References: ", model.references.map((reference) =>
          el("span", {}, reference.property + " → ", el("a", { href: routeLink(["rows", reference.model]) }, reference.model), " ",
            el("span", { className: "rule " + reference.deleteRule }, "on delete: " + reference.deleteRule), " "))) : null,
        model.referrers.length ? el("p", {}, "Referred to by: ", model.referrers.map((referrer) =>
          el("span", {}, el("a", { href: routeLink(["rows", referrer.model]) }, referrer.model), "." + referrer.property + " ",
            el("span", { className: "rule " + referrer.deleteRule }, referrer.deleteRule), " "))) : null);
    }

    // The rows view: its query lives in the address (sort, desc, q, f, after), so it can be
    // linked, reloaded and gone back to.
    async function drawRows(main, name, parameters) {
      const model = modelNamed(name);
      if (!model) throw new Error("The store has no model " + name + ".");
      const filters = parameters.f ? JSON.parse(parameters.f) : [];
      const view = { model: name, parameters, filters };
      state.view = view;
      const page = await api("/api/rows", { model: name, sort: parameters.sort, desc: parameters.desc,
        q: parameters.q, f: parameters.f, after: parameters.after, limit: parameters.limit });
      if (state.view !== view) return;
      view.page = page;
      const filterList = el("div", { id: "filters" });
      for (const filter of filters) filterList.append(filterRow(model, filter));
      const search = model.searchable.length ? el("input", { id: "search", type: "search",
        placeholder: "Search " + model.searchable.join(", "), value: parameters.q || "" }) : null;
      const apply = () => {
        const chosen = [...filterList.querySelectorAll(".filter")].map((row) => ({
          property: row.querySelector(".filter-property").value, op: row.querySelector(".filter-op").value,
          value: row.querySelector(".filter-value").value }));
        location.hash = routeLink(["rows", name], { sort: parameters.sort, desc: parameters.desc,
          q: search ? search.value : undefined, f: chosen.length ? JSON.stringify(chosen) : undefined });
      };
      const exportLink = (format) => "/api/export?" + new URLSearchParams(Object.entries({ model: name,
        sort: parameters.sort, desc: parameters.desc, q: parameters.q, f: parameters.f, format })
        .filter(([, value]) => value !== undefined && value !== "")).toString();
      const toolbar = el("div", { className: "toolbar" },
        search,
        el("button", { id: "add-filter", onclick: () => filterList.append(filterRow(model, { property: model.columns[0].name, op: "==", value: "" })) }, "Add filter"),
        el("button", { id: "apply-filter", className: "primary", onclick: apply }, "Apply"),
        el("a", { id: "export-csv", href: exportLink("csv") }, "Export CSV"),
        el("a", { id: "export-json", href: exportLink("json") }, "Export JSON"),
        state.store.writable ? el("button", { id: "new-row", onclick: () => newRow(main, model) }, "New row") : null);
      if (search) search.onkeydown = (event) => { if (event.key === "Enter") apply(); };
      const status = el("div", { id: "query-status", className: "status" + (page.inMemory.length ? " memory" : "") },
        page.condition ? "Filter ran in SQL: " + page.condition : "No filter: every row, by key.");
      if (page.inMemory.length) {
        status.append(el("div", { id: "in-memory" }, "In memory (on the rows SQL returned): " + page.inMemory.join("; ")
          + " — read " + page.scanned.toLocaleString() + " rows for this page" + (page.stoppedAtScanLimit ? ", stopped early: Next continues" : "") + "."));
      }
      const sort = parameters.sort || "";
      const headers = page.columns.map((column) => {
        const sorted = sort === column.name || (!sort && column.isPrimaryKey);
        const arrow = sorted ? (parameters.desc === "1" ? " ▼" : " ▲") : "";
        return el("th", { className: "sortable", "data-column": column.name, title: "Sort by " + column.name,
          onclick: () => { location.hash = routeLink(["rows", name], { sort: column.name,
            desc: sorted && parameters.desc !== "1" ? "1" : undefined, q: parameters.q, f: parameters.f }); } },
          column.name, el("span", { className: "arrow" }, arrow), el("div", { className: "kind" }, column.kind + (column.isOptional ? "?" : "")));
      });
      const body = el("tbody", {}, page.rows.map((row) => rowLine(model, page.columns, row)));
      const start = Number(parameters.start || 1);
      const pager = el("div", { className: "toolbar" },
        el("button", { id: "first-page", disabled: !parameters.after, onclick: () => {
          location.hash = routeLink(["rows", name], { sort: parameters.sort, desc: parameters.desc, q: parameters.q, f: parameters.f }); } }, "First page"),
        el("button", { id: "next-page", disabled: !page.next, onclick: () => {
          location.hash = routeLink(["rows", name], { sort: parameters.sort, desc: parameters.desc, q: parameters.q, f: parameters.f,
            after: page.next, start: start + page.rows.length }); } }, "Next page"),
        el("span", { id: "page-info", className: "status" }, page.rows.length
          ? "Rows " + start.toLocaleString() + "–" + (start + page.rows.length - 1).toLocaleString()
            + (parameters.f || parameters.q ? " that match" : " of " + model.rows.toLocaleString())
          : "No rows."));
      main.replaceChildren(el("h1", {}, name), toolbar, filterList, status,
        el("table", { id: "rows", "data-model": name }, el("thead", {}, el("tr", {}, headers)), body), pager);
    }

    function rowLine(model, columns, row) {
      const keyIndex = columns.findIndex((column) => column.isPrimaryKey);
      const tr = el("tr", { "data-key": row.key, "data-id": keyText(row.cells[keyIndex] || {}) });
      columns.forEach((column, index) => {
        const td = valueCell(row.cells[index], column, model);
        if (index === keyIndex) {
          const link = el("a", { href: routeLink(["row", model.name, row.key]), className: "row-link" });
          link.append(...td.childNodes);
          td.append(link);
        }
        tr.append(td);
      });
      if (state.live.has(model.name + "\u0000" + keyText(row.cells[keyIndex] || {}))) tr.classList.add("changed");
      return tr;
    }

    function filterRow(model, filter) {
      const property = el("select", { className: "filter-property" },
        model.columns.map((column) => el("option", { value: column.name }, column.name)));
      property.value = filter.property;
      const op = el("select", { className: "filter-op" }, OPERATORS.map((name) => el("option", { value: name }, name)));
      op.value = filter.op;
      const value = el("input", { className: "filter-value", type: "text", value: filter.value || "", placeholder: "value" });
      const line = el("div", { className: "filter" }, property, op, value);
      line.append(el("button", { className: "remove-filter", title: "Remove", onclick: () => line.remove() }, "×"));
      return line;
    }

    async function drawRow(main, name, token) {
      const model = modelNamed(name);
      if (!model) throw new Error("The store has no model " + name + ".");
      const view = { row: name, token };
      state.view = view;
      const row = await api("/api/row", { model: name, key: token });
      if (state.view !== view) return;
      const keyIndex = row.columns.findIndex((column) => column.isPrimaryKey);
      const lines = row.columns.map((column, index) => el("tr", { "data-column": column.name },
        el("th", {}, column.name, el("div", { className: "kind" }, column.kind + (column.isOptional ? "?" : ""))),
        valueCell(row.cells[index], column, model)));
      const referrers = row.referrers.map((group) => el("li", { className: "referrers", "data-model": group.model, "data-property": group.property },
        el("a", { href: routeLink(["rows", group.model], { f: JSON.stringify([{ property: group.property, op: "==", value: keyText(row.cells[keyIndex]) }]) }) },
          group.model + "." + group.property),
        ": " + group.count + (group.count === 1 ? " row " : " rows "),
        el("span", { className: "rule " + group.deleteRule }, "on delete: " + group.deleteRule), " ",
        group.keys.map((key, number) => el("a", { href: routeLink(["row", group.model, key]), className: "referrer-link mono" }, group.shown[number])), " "));
      main.replaceChildren(
        el("h1", {}, el("a", { href: routeLink(["rows", name]) }, name), " ", el("span", { className: "mono" }, keyText(row.cells[keyIndex] || {}))),
        el("table", { id: "row" }, el("tbody", {}, lines)),
        el("h2", {}, "Referred to by"),
        referrers.length ? el("ul", { className: "plain", id: "referrers" }, referrers) : el("p", { className: "muted", id: "referrers" }, "No model refers to " + name + "."));
      const preview = await api("/api/delete-preview", { model: name, key: token });
      if (state.view !== view) return;
      main.append(el("h2", {}, "Deleting this row"),
        el("p", { id: "delete-preview", className: preview.refusals.length ? "refused" : "" }, preview.summary),
        state.store.writable
          ? el("div", { className: "toolbar" },
              el("button", { id: "edit-row", onclick: () => editRow(main, model, row, token) }, "Edit"),
              el("button", { id: "delete-row", onclick: () => addEdit({ action: "delete", model: name, key: token,
                label: "Delete " + name + " " + keyText(row.cells[keyIndex] || {}) }) }, "Delete…"))
          : el("p", { className: "status" }, "The studio is read-only: this says what a delete would do, by the delete rules, and deletes nothing."));
    }

    // --write: edits gather in a batch, which is previewed (what each does, with the delete
    // rules' cascades and refusals) and then saved at once. Each change carries the secret in
    // a header (another site's page can't set one).
    function secret() {
      const meta = document.querySelector("meta[name=kura-write-secret]");
      return meta ? meta.getAttribute("content") : "";
    }

    async function post(path, body) {
      const response = await fetch(path, { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "Accept": "application/json", "X-Kura-Secret": secret() },
        body: JSON.stringify(body) });
      const text = await response.text();
      let answer;
      try { answer = JSON.parse(text); } catch (error) { answer = { error: text }; }
      answer.status = response.status;
      return answer;
    }

    // The text an input starts with for a stored value (what the server reads back).
    function editableText(cell) {
      if (cell.nil) return null;
      if ("text" in cell) return cell.text;
      if ("int" in cell) return cell.int;
      if ("real" in cell) return cell.real;
      if ("bool" in cell) return String(cell.bool);
      if ("date" in cell) return new Date(cell.date * 1000).toISOString();
      if ("uuid" in cell) return cell.uuid;
      if ("url" in cell) return cell.url;
      if ("json" in cell) return cell.json;
      if ("hex" in cell) return cell.bytes > 32 ? null : cell.hex;
      return "";
    }

    function valueInput(column, text) {
      const input = el("input", { type: "text", className: "edit-value", "data-column": column.name,
        value: text === null ? "" : text, placeholder: column.kind === "date" ? "2026-12-06T09:30:00Z" : column.kind });
      const nil = column.isOptional ? el("input", { type: "checkbox", className: "edit-nil", "data-column": column.name,
        title: "nil", checked: text === null }) : null;
      return el("span", { className: "edit-field" }, input, nil ? el("label", {}, nil, " nil") : null,
        el("span", { className: "field-error", "data-column": column.name }));
    }

    function readValues(form, columns, original) {
      const values = {};
      for (const column of columns) {
        const input = form.querySelector(".edit-value[data-column=\"" + CSS.escape(column.name) + "\"]");
        if (!input) continue;
        const nil = form.querySelector(".edit-nil[data-column=\"" + CSS.escape(column.name) + "\"]");
        const value = nil && nil.checked ? null : input.value;
        if (original && original[column.name] === value) continue;
        if (!original && value === "" && column.isOptional) continue;
        if (!original && value === "" && column.isPrimaryKey && (column.kind === "integer" || column.kind === "uuid")) continue;
        values[column.name] = value;
      }
      return values;
    }

    function editRow(main, model, row, token) {
      const original = {};
      const lines = row.columns.map((column, index) => {
        original[column.name] = editableText(row.cells[index]);
        return el("tr", { "data-column": column.name },
          el("th", {}, column.name, el("div", { className: "kind" }, column.kind + (column.isOptional ? "?" : ""))),
          el("td", {}, column.isPrimaryKey ? el("span", { className: "mono" }, original[column.name] ?? "")
            : valueInput(column, original[column.name])));
      });
      const form = el("table", { id: "edit-form" }, el("tbody", {}, lines));
      const keyIndex = row.columns.findIndex((column) => column.isPrimaryKey);
      main.replaceChildren(el("h1", {}, "Edit " + model.name + " " + keyText(row.cells[keyIndex] || {})), form,
        el("div", { className: "toolbar" },
          el("button", { id: "add-to-batch", className: "primary", onclick: () => {
            const values = readValues(form, row.columns.filter((column) => !column.isPrimaryKey), original);
            addEdit({ action: "update", model: model.name, key: token, values,
              label: "Edit " + model.name + " " + keyText(row.cells[keyIndex] || {}) }, form);
          } }, "Add to batch"),
          el("a", { href: routeLink(["row", model.name, token]) }, "Cancel")));
      state.view = { editing: true };
    }

    function newRow(main, model) {
      const form = el("table", { id: "edit-form" }, el("tbody", {}, model.columns.map((column) => el("tr", { "data-column": column.name },
        el("th", {}, column.name, el("div", { className: "kind" }, column.kind + (column.isOptional ? "?" : "")
          + (column.isPrimaryKey && (column.kind === "integer" || column.kind === "uuid") ? " (empty: made for you)" : ""))),
        el("td", {}, valueInput(column, column.isOptional ? null : ""))))));
      main.replaceChildren(el("h1", {}, "New " + model.name), form,
        el("div", { className: "toolbar" },
          el("button", { id: "add-to-batch", className: "primary", onclick: () => {
            addEdit({ action: "insert", model: model.name, values: readValues(form, model.columns, null),
              label: "Insert a " + model.name }, form);
          } }, "Add to batch"),
          el("a", { href: routeLink(["rows", model.name]) }, "Cancel")));
      state.view = { editing: true };
    }

    state.batch = [];
    function addEdit(edit, form) {
      state.batch.push({ edit, form });
      drawBatch();
    }

    function drawBatch(preview, failure) {
      let panel = document.getElementById("batch");
      if (!panel) {
        panel = el("aside", { id: "batch", className: "card" });
        document.getElementById("layout").append(panel);
      }
      if (!state.batch.length && !failure) { panel.remove(); return; }
      const items = state.batch.map(({ edit }, index) => {
        const line = preview && preview.lines.find((item) => item.edit === index);
        const errors = [...(preview ? preview.errors : []), ...(failure ? [failure] : [])].filter((item) => item.edit === index);
        return el("li", { className: "batch-edit", "data-action": edit.action },
          el("strong", {}, edit.label), " ",
          el("button", { className: "remove-edit", title: "Remove from the batch", onclick: () => { state.batch.splice(index, 1); drawBatch(); } }, "×"),
          line ? el("div", { className: "preview-line" + (line.refused ? " refused" : "") }, line.summary) : null,
          errors.map((error) => el("div", { className: "edit-error error", "data-property": error.property || "" }, error.error)));
      });
      const general = failure && (failure.edit === undefined || failure.edit === null)
        ? el("div", { className: "edit-error error" }, failure.error) : null;
      const canSave = preview && !preview.refused && !preview.errors.length;
      panel.replaceChildren(el("h2", {}, "Changes to save (" + state.batch.length + ")"),
        el("ol", { id: "batch-edits" }, items), general || "",
        el("div", { className: "toolbar" },
          el("button", { id: "preview-batch", onclick: previewBatch }, "Preview"),
          el("button", { id: "save-batch", className: "primary", disabled: !canSave, onclick: saveBatch }, "Save"),
          el("button", { id: "discard-batch", onclick: () => { state.batch = []; drawBatch(); } }, "Discard")),
        el("p", { className: "status" }, canSave ? "Saved at once, in one transaction." : "Preview the batch to save it."));
      for (const { form } of state.batch) markErrors(form, []);
      const all = [...(preview ? preview.errors : []), ...(failure ? [failure] : [])];
      all.forEach((error) => { const entry = state.batch[error.edit]; if (entry) markErrors(entry.form, [error]); });
    }

    function markErrors(form, errors) {
      if (!form) return;
      for (const node of form.querySelectorAll(".field-error")) node.textContent = "";
      for (const error of errors) {
        if (!error.property) continue;
        const node = form.querySelector(".field-error[data-column=\"" + CSS.escape(error.property) + "\"]");
        if (node) node.textContent = error.error;
      }
    }

    function batchBody(preview) {
      return { preview, edits: state.batch.map(({ edit }) => ({ action: edit.action, model: edit.model, key: edit.key, values: edit.values })) };
    }

    async function previewBatch() {
      const answer = await post("/api/edits", batchBody(true));
      if (answer.status !== 200) { drawBatch(null, { error: answer.error, edit: answer.edit, property: answer.property }); return; }
      drawBatch(answer);
    }

    async function saveBatch() {
      const answer = await post("/api/edits", batchBody(false));
      if (answer.status !== 200) { drawBatch(null, { error: answer.error, edit: answer.edit, property: answer.property }); return; }
      state.batch = [];
      drawBatch();
      await loadStore();
      const node = el("div", { id: "saved", className: "status" }, "Saved as change set #" + answer.token + ".");
      const route = parseRoute();
      if (route.parts[0] === "row" && answer.changes[route.parts[1]] && (answer.changes[route.parts[1]].deleted || answer.changes[route.parts[1]][2] || []).length) {
        // The row shown is gone: its model's rows are drawn on the route change, with the notice.
        const hash = routeLink(["rows", route.parts[1]]);
        state.notice = { node, hash };
        location.hash = hash;
      } else {
        state.notice = { node, hash: location.hash };
        await render();
      }
    }

    // A stream of events for the view shown (the app's files, a sync server's spaces): each
    // event brings the view's data whole; the stream closes when the view changes.
    function follow(view, path, name, draw) {
      closeFollowing();
      const source = new EventSource(path);
      state.following = source;
      source.addEventListener(name, (message) => {
        if (state.view !== view) { source.close(); return; }
        draw(JSON.parse(message.data), "live");
      });
      source.addEventListener("failure", (message) => {
        if (state.view !== view) return;
        const status = document.getElementById("view-live");
        if (status) { status.textContent = JSON.parse(message.data).error; status.className = "status error"; }
      });
      source.onerror = () => {
        const status = document.getElementById("view-live");
        if (status && state.view === view) { status.textContent = "Reconnecting…"; status.className = "status off"; }
      };
    }

    function closeFollowing() {
      if (state.following) { state.following.close(); state.following = null; }
    }

    function liveStatus(live, text) {
      return el("p", { id: "view-live", className: "status" + (live ? " on" : ""), "data-live": live ? "1" : "0" },
        live ? text : "Connecting…");
    }

    // --app: the app's preference suites, scene states and documents, live: the studio pushes
    // them again when any process writes them.
    async function drawApp(main) {
      const view = { app: true };
      state.view = view;
      const app = await api("/api/app");
      if (state.view !== view) return;
      drawAppAnswer(main, app, null);
      follow(view, "/api/app-events", "app", (answer, live) => drawAppAnswer(main, answer, live));
    }

    function drawAppAnswer(main, app, live) {
      const suiteCard = (suite, kind) => el("section", { className: "card " + kind, "data-suite": suite.name },
        el("h2", {}, suite.name, " ", el("span", { className: "kind mono" }, suite.file)),
        suite.error ? el("div", { className: "error" }, suite.error) : null,
        suite.keys.length ? el("table", { className: "preferences" },
          el("thead", {}, el("tr", {}, ["Key", "Type", "Value"].map((name) => el("th", {}, name)))),
          el("tbody", {}, suite.keys.map((entry) => el("tr", { "data-key": entry.key },
            el("td", { className: "mono" }, entry.key), el("td", {}, entry.type),
            el("td", { className: entry.type.startsWith("data") || entry.type === "array" || entry.type === "dictionary" ? "json" : "", title: entry.value }, entry.value)))))
          : el("p", { className: "muted" }, suite.error ? "" : "No keys."));
      const documentCard = (document) => el("section", { className: "card document", "data-document": document.name },
        el("h2", {}, document.name, " ", el("span", { className: "kind" }, document.bytes.toLocaleString() + " bytes · " + document.path)),
        el("p", { className: "journal" }, document.journal
          ? "Journal: " + document.journal.state + " · " + document.journal.records + (document.journal.records === 1 ? " change" : " changes")
            + " · " + document.journal.bytes.toLocaleString() + " bytes" + (document.journal.detail ? " · " + document.journal.detail : "")
            + (document.journal.state === "pending" ? " (shown applied)" : "")
          : "No journal: the file holds every change."),
        document.error ? el("div", { className: "error" }, document.error) : null,
        document.json !== undefined && document.json !== null ? el("pre", { className: "json-view" }, document.json) : null);
      main.replaceChildren(el("h1", {}, "App " + app.app + (app.group ? " · " + app.group : "")),
        el("div", { className: "card" }, el("dl", { className: "facts" }, Object.keys(app.paths).sort().map((name) =>
          [el("dt", {}, name), el("dd", { className: "mono" }, app.paths[name])]),
          el("dt", {}, "model store"), el("dd", { className: "mono" }, app.store || "none"))),
        el("h2", {}, "Preferences"), el("div", { id: "suites" }, app.suites.length ? app.suites.map((suite) => suiteCard(suite, "suite")) : el("p", { className: "muted" }, "No preference suite.")),
        el("h2", {}, "Scene states"), el("div", { id: "scenes" }, app.scenes.length ? app.scenes.map((suite) => suiteCard(suite, "scene")) : el("p", { className: "muted" }, "No scene state.")),
        el("h2", {}, "Documents"), el("div", { id: "documents" }, app.documents.length ? app.documents.map(documentCard) : el("p", { className: "muted" }, "No document.")),
        liveStatus(live, "Live: a write by any process shows here."));
    }

    function textTable(id, columns, rows) {
      return el("table", { id, className: "plain-table" },
        el("thead", {}, el("tr", {}, columns.map((name) => el("th", {}, name)))),
        el("tbody", {}, rows.map((row) => el("tr", {}, row.map((value) =>
          value === null || value === undefined ? el("td", {}, el("span", { className: "nil" }, "nil")) : el("td", { title: String(value) }, String(value)))))));
    }

    // A synced store: its sync state, outbox, conflicts, rejections and quarantine (live: they
    // change with the saves the feed reports).
    async function drawSync(main) {
      const view = { sync: true, history: true };
      state.view = view;
      const sync = await api("/api/sync");
      if (state.view !== view) return;
      if (!sync.synced) { main.replaceChildren(el("h1", {}, "Sync"), el("p", {}, "This store does not sync.")); return; }
      const section = (title, id, table, empty) => [el("h2", {}, title + (table ? " (" + table.count.toLocaleString() + ")" : "")),
        table && table.count ? textTable(id, table.columns, table.rows) : el("p", { className: "muted", id }, empty)];
      main.replaceChildren(el("h1", {}, "Sync"),
        el("div", { className: "card" }, el("dl", { className: "facts", id: "sync-state" }, Object.keys(sync.state).sort().map((key) =>
          [el("dt", {}, key), el("dd", { className: "mono" }, sync.state[key])]),
          el("dt", {}, "parked"), el("dd", {}, String(sync.parked ?? 0)))),
        ...section("Pending outbox", "sync-outbox", sync.outbox, "Nothing waits to be pushed."),
        ...section("Conflicts", "sync-conflicts", sync.conflicts, "No conflict."),
        ...section("Rejections", "sync-rejections", sync.rejections, "The server refused no save."),
        ...section("Quarantine", "sync-quarantine", sync.quarantine, "No pulled change is held back."));
    }

    // --sync-server: the spaces, each with its replicas, live: pushed again at each push the
    // sync service announces, and within 2 seconds of a replica's contact.
    async function drawSyncServer(main) {
      const view = { syncServer: true };
      state.view = view;
      const server = await api("/api/sync-server");
      if (state.view !== view) return;
      drawSyncServerAnswer(main, server, null);
      follow(view, "/api/sync-server-events", "server", (answer, live) => drawSyncServerAnswer(main, answer, live));
    }

    function drawSyncServerAnswer(main, server, live) {
      const when = (seconds) => seconds ? new Date(seconds * 1000).toLocaleString() : "–";
      const days = Math.round(server.retentionSeconds / 86400);
      main.replaceChildren(el("h1", {}, "Sync server"),
        el("p", { className: "status" }, server.database + " · replicas unseen for " + days + " days are retired by the next compaction"),
        el("div", { id: "spaces" }, server.spaces.length ? server.spaces.map((space) => el("section", { className: "card space", "data-space": space.space },
          el("h2", {}, space.space),
          el("dl", { className: "facts" },
            el("dt", {}, "Head"), el("dd", { className: "head" }, String(space.head)),
            el("dt", {}, "Compacted through"), el("dd", { className: "compacted" }, String(space.compacted)),
            el("dt", {}, "Log"), el("dd", {}, space.logged.toLocaleString() + " saves after the compacted position; " + space.foldedRows.toLocaleString() + " folded rows"),
            el("dt", {}, "Compaction horizon"), el("dd", {}, space.horizon === null || space.horizon === undefined ? "none (no current replica)" : "position " + space.horizon + " (every current replica settled through it)"),
            el("dt", {}, "Latest save"), el("dd", {}, when(space.lastSave))),
          textTable("replicas-" + space.space, ["Replica", "Last contact", "Acknowledged save", "Pulled through", "Settled through", "State"],
            space.replicas.map((replica) => [replica.replica, when(replica.seenAt), String(replica.acknowledged), String(replica.pulled), String(replica.settled),
              replica.retiring ? "retiring (unseen " + days + "+ days)" : "current"]))))
          : el("p", { className: "muted" }, "No space yet.")),
        liveStatus(live, "Live: each push shows at once, a replica's contact within 2 seconds."));
    }

    async function drawHistory(main) {
      const view = { history: true };
      state.view = view;
      const history = await api("/api/history", { limit: 100 });
      if (state.view !== view) return;
      const entries = history.changeSets.map(historyEntry);
      main.replaceChildren(el("h1", {}, "History"),
        el("p", { className: "status" }, "The latest change sets saved to the store, newest first (live)."),
        el("div", { id: "history" }, entries.length ? entries : el("p", {}, "No change set yet.")));
    }

    function historyEntry(entry) {
      const lines = Object.keys(entry.changes).sort().map((name) => {
        const changes = entry.changes[name];
        const ids = (list, className, label) => list.length ? el("div", { className: "ids " + className }, label + ": ",
          list.map((id) => {
            const token = "t" + btoa(unescape(encodeURIComponent(id))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
            const model = modelNamed(name);
            const integerKey = model && model.columns.find((column) => column.isPrimaryKey && column.kind === "integer");
            return className === "del" ? el("span", { className: "mono" }, id + " ")
              : el("a", { href: routeLink(["row", name, integerKey ? "i" + id : token]) }, id);
          })) : null;
        return el("div", { className: "model-changes", "data-model": name }, el("strong", {}, name),
          ids(changes[0] || changes.inserted || [], "ins", "inserted"),
          ids(changes[1] || changes.updated || [], "upd", "updated"),
          ids(changes[2] || changes.deleted || [], "del", "deleted"));
      });
      return el("div", { className: "history-entry", "data-token": entry.token },
        el("div", {}, el("span", { className: "mono" }, "#" + entry.token), " · ", new Date(entry.date * 1000).toLocaleString()), lines);
    }

    // Live: each change set saved by any process marks its rows and refreshes the view.
    function connectLive() {
      const badge = document.getElementById("live");
      const events = new EventSource("/api/events");
      events.addEventListener("hello", () => { badge.textContent = "live"; badge.className = "badge on"; });
      events.addEventListener("change", async (message) => {
        const entry = JSON.parse(message.data);
        state.token = entry.token;
        for (const [name, changes] of Object.entries(entry.changes)) {
          const lists = Array.isArray(changes) ? changes : [changes.inserted || [], changes.updated || [], []];
          for (const id of [...(lists[0] || []), ...(lists[1] || [])]) state.live.add(name + "\u0000" + id);
        }
        badge.textContent = "live · saved #" + entry.token;
        try {
          await loadStore();
          if (!state.view || state.view.model || state.view.row || state.view.history) await render();
          else drawNavigation();
        } catch (error) { /* the next change tries again */ }
      });
      events.onerror = () => { badge.textContent = "reconnecting…"; badge.className = "badge off"; };
    }

    window.addEventListener("hashchange", render);
    window.addEventListener("DOMContentLoaded", async () => {
      try {
        await loadStore();
        await render();
        connectLive();
      } catch (error) {
        showError(document.getElementById("main"), error);
      }
    });
    """#
}
