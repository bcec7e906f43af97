// The graph explorer: search a name, see its neighbourhood and the graph-search paths, click a node
// or an edge for what the graph knows and where it read it, ask a question and see what the answer
// used, and the latest health reports. Every request goes to the API on this server.
"use strict";

const $ = (id) => document.getElementById(id);
const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
  "#9c755f", "#bab0ac", "#2f4b7c", "#a05195", "#d45087", "#665191", "#008f7a", "#c34a36"];
const typeColours = new Map();
let cy = null;

function colourOf(type) {
  if (!typeColours.has(type)) {
    typeColours.set(type, PALETTE[typeColours.size % PALETTE.length]);
    renderLegend();
  }
  return typeColours.get(type);
}

function renderLegend() {
  const legend = $("legend");
  legend.replaceChildren(...[...typeColours].map(([type, colour]) => {
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = colour;
    item.append(swatch, type);
    return item;
  }));
}

// -- talking to the API ------------------------------------------------------------------------------
class ApiError extends Error {}

async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  const key = sessionStorage.getItem("kg-api-key");
  if (key) headers["Authorization"] = "Bearer " + key;
  let response;
  try {
    response = await fetch(path, Object.assign({}, options, { headers }));
  } catch (err) {
    throw new ApiError("The server did not answer (" + err.message + "). Is `kg-pipelines serve` running?");
  }
  if (response.status === 401) $("auth").hidden = false;
  let body = null;
  try { body = await response.json(); } catch (_) { body = null; }
  if (!response.ok) {
    const detail = body && typeof body.detail === "string" ? body.detail : response.statusText;
    throw new ApiError("The server answered " + response.status + ": " + detail);
  }
  return body;
}

function showError(err) {
  const box = $("error");
  box.textContent = err instanceof ApiError ? err.message : "Something went wrong in the page: " + err.message;
  box.hidden = false;
  setStatus("");
}

function clearError() { $("error").hidden = true; }
function setStatus(text) { $("status").textContent = text; }

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// -- the drawing -------------------------------------------------------------------------------------
function ensureGraph() {
  if (cy) return cy;
  cy = cytoscape({
    container: $("graph"),
    style: [
      { selector: "node", style: {
        "background-color": "data(colour)", "label": "data(label)", "font-size": 10, "color": "#1d2433",
        "text-valign": "bottom", "text-margin-y": 3, "width": 18, "height": 18 } },
      { selector: "node.start", style: { "width": 28, "height": 28, "border-width": 3, "border-color": "#1d2433" } },
      { selector: "node.has-more", style: { "shape": "round-rectangle" } },
      { selector: "edge", style: {
        "width": "mapData(strength, 0, 1, 1, 8)", "line-color": "#b8c0cc", "curve-style": "bezier",
        "target-arrow-shape": "triangle", "target-arrow-color": "#b8c0cc", "arrow-scale": 0.7 } },
      { selector: ".highlight", style: { "line-color": "#d9480f", "target-arrow-color": "#d9480f",
        "border-width": 3, "border-color": "#d9480f", "z-index": 10 } },
      { selector: ":selected", style: { "border-width": 3, "border-color": "#6aa6ff", "line-color": "#6aa6ff" } },
    ],
  });
  cy.on("tap", "node", (event) => showNode(event.target.id()).catch(showError));
  cy.on("tap", "edge", (event) => showEdge(event.target.id()).catch(showError));
  return cy;
}

function addToGraph(data, startIds) {
  const graph = ensureGraph();
  const added = [];
  for (const node of data.nodes) {
    if (graph.getElementById(node.id).nonempty()) continue;
    added.push({ group: "nodes", data: { id: node.id, label: node.name, type: node.type, colour: colourOf(node.type),
      depth: node.depth } });
  }
  for (const edge of data.edges) {
    if (graph.getElementById(edge.id).nonempty()) continue;
    added.push({ group: "edges", data: { id: edge.id, source: edge.source, target: edge.target,
      strength: edge.strength, type: edge.type } });
  }
  graph.add(added);
  for (const [nodeId, count] of Object.entries(data.more || {})) {
    const node = graph.getElementById(nodeId);
    if (node.nonempty()) node.addClass("has-more").data("more", count);
  }
  for (const id of startIds || []) graph.getElementById(id).addClass("start");
  // rings by distance from the start: the start in the middle, its neighbours around it, a path's
  // farther nodes outside (depth -1: drawn for a path beyond the walk)
  graph.layout({ name: "concentric", animate: false, minNodeSpacing: 28, avoidOverlap: true,
    concentric: (n) => { const d = n.data("depth"); return d === undefined || d < 0 ? 0 : 10 - d; },
    levelWidth: () => 1 }).run();
  graph.fit(undefined, 30);
  if (graph.zoom() > 1.4) { graph.zoom(1.4); graph.center(); }
  $("graph").dataset.nodes = String(graph.nodes().length);
  $("graph").dataset.edges = String(graph.edges().length);
}

function highlight(nodeIds, edgeIds) {
  const graph = ensureGraph();
  graph.elements().removeClass("highlight");
  for (const id of [...nodeIds, ...edgeIds]) graph.getElementById(id).addClass("highlight");
  $("graph").dataset.highlighted = String(graph.elements(".highlight").length);
}

// -- search ------------------------------------------------------------------------------------------
async function search(term) {
  clearError();
  setStatus("Searching " + term + " …");
  const depth = $("depth").value;
  const limit = $("limit").value || "300";
  const params = new URLSearchParams({ term, depth, limit });
  const data = await api("/explore/api/neighbourhood?" + params);
  history.replaceState(null, "", "/explore?" + new URLSearchParams({ term }));
  if (cy) cy.elements().remove();
  if (!data.nodes.length) {
    setStatus(data.message || "Nothing found for " + term + ".");
    renderPaths([]);
    return data;
  }
  addToGraph(data, data.matched.map((m) => m.node_id));
  renderPaths(data.paths);
  const more = Object.values(data.more).reduce((a, b) => a + b, 0);
  setStatus(data.nodes.length + " nodes, " + data.edges.length + " edges" +
    (more ? " (" + more + " more neighbours not drawn: click a square node to expand it)" : ""));
  return data;
}

function renderPaths(paths) {
  const box = $("paths");
  box.replaceChildren(el("h2", "Paths (" + paths.length + ")"));
  box.hidden = false;
  if (!paths.length) box.append(el("p", "No path leads out of this name."));
  for (const path of paths) {
    const item = el("div", null, "path");
    for (const line of path.lines) item.append(el("div", line));
    item.addEventListener("click", () => highlight(path.node_ids, path.edge_ids));
    box.append(item);
  }
  if (paths.length) highlight(paths.flatMap((p) => p.node_ids), paths.flatMap((p) => p.edge_ids));
}

async function expand(nodeId) {
  clearError();
  const limit = $("limit").value || "300";
  const data = await api("/explore/api/expand?" + new URLSearchParams({ node_id: nodeId, depth: "1", limit }));
  addToGraph(data, []);
  setStatus("Expanded: " + data.nodes.length + " nodes around it.");
}

// -- details -----------------------------------------------------------------------------------------
function renderSources(box, sources) {
  box.append(el("h3", "Sources (" + sources.length + ")"));
  for (const source of sources) {
    const item = el("div", null, "source");
    item.append(el("div", source.title, "title"), el("div", source.snippet || source.chunk_id, "snippet"));
    box.append(item);
  }
}

function figures(box, rows) {
  const grid = el("div", null, "figures");
  for (const [name, value] of rows) {
    if (value === null || value === undefined || value === "") continue;
    grid.append(el("span", name), el("span", typeof value === "object" ? JSON.stringify(value) : String(value)));
  }
  box.append(grid);
}

async function showNode(nodeId) {
  clearError();
  const node = await api("/explore/api/node?" + new URLSearchParams({ node_id: nodeId }));
  const box = $("details");
  box.replaceChildren(el("h2", node.name));
  box.hidden = false;
  box.dataset.kind = "node";
  figures(box, [["type", node.type], ["kind", node.kind], ["description", node.description],
    ["energy", node.energy], ["support", node.support_count], ["links", node.degree], ["created by", node.created_by]]);
  const history_ = Array.isArray(node.merge_history) ? node.merge_history : [];
  box.append(el("h3", "Merge history (" + history_.length + ")"));
  for (const entry of history_) box.append(el("div", typeof entry === "object" ? JSON.stringify(entry) : String(entry)));
  const drawn = cy && cy.getElementById(nodeId);
  if (drawn && drawn.nonempty() && drawn.data("more")) {
    const button = el("button", "Expand (" + drawn.data("more") + " more)", "more");
    button.type = "button";
    button.addEventListener("click", () => expand(nodeId).catch(showError));
    box.append(button);
  }
  renderSources(box, node.sources);
}

async function showEdge(edgeId) {
  clearError();
  const edge = await api("/explore/api/edge?" + new URLSearchParams({ edge_id: edgeId }));
  const box = $("details");
  box.replaceChildren(el("h2", edge.type + " edge"));
  box.hidden = false;
  box.dataset.kind = "edge";
  figures(box, [["from", edge.source], ["to", edge.target], ["explanation", edge.explanation],
    ["strength", edge.strength], ["support", edge.support_count], ["activations", edge.activation_count],
    ["last used", edge.last_activated_at], ["created by", edge.created_by], ["protected", edge.protected]]);
  renderSources(box, edge.sources);
}

// -- ask ---------------------------------------------------------------------------------------------
async function ask(question) {
  clearError();
  setStatus("Asking …");
  history.replaceState(null, "", "/explore?" + new URLSearchParams({ q: question }));
  const result = await api("/qa", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ question }) });
  const box = $("answer");
  box.replaceChildren(el("h2", "Answer"));
  box.hidden = false;
  box.append(el("p", result.answer));
  box.append(el("p", result.supported ? "supported by the gathered text" : "not supported by the gathered text",
    result.supported ? "supported" : "unsupported"));
  box.append(el("h3", "Rounds (" + result.rounds.length + ")"));
  for (const round of result.rounds) {
    box.append(el("div", "round " + round.iteration + ": " + round.sub_questions.join(" | ") +
      (round.chunk_added ? " → " + round.chunk_added : "") + (round.stop_reason ? " (" + round.stop_reason + ")" : "")));
  }
  box.append(el("h3", "Sources (" + result.sources.length + ")"));
  for (const source of result.sources) box.append(el("div", (source.title || source.document_id) + " — " + source.chunk_id));
  const chunkIds = result.sources.map((s) => s.chunk_id);
  if (chunkIds.length) {
    const params = new URLSearchParams();
    for (const id of chunkIds.slice(0, 50)) params.append("chunk_id", id);
    const used = await api("/explore/api/evidence?" + params);
    if (cy) cy.elements().remove();
    addToGraph(used, []);
    highlight(used.nodes.map((n) => n.id), used.edges.map((e) => e.id));
    setStatus("The answer used " + chunkIds.length + " chunk(s): " + used.nodes.length + " nodes and " +
      used.edges.length + " edges from them are highlighted.");
  } else {
    setStatus("The answer used no chunk.");
  }
  return result;
}

// the job's runs in the Dagster UI (the reports' run ids are this project's own, not Dagster's)
function dagsterRuns(ui, job) {
  const link = el("a", "runs of " + job + " in the Dagster UI");
  link.href = ui.replace(/\/$/, "") + "/runs?" + new URLSearchParams({ "q[]": "job:" + job });
  link.target = "_blank";
  link.className = "runs";
  return link;
}

// -- health ------------------------------------------------------------------------------------------
async function showHealth() {
  clearError();
  const data = await api("/explore/api/health");
  const links = $("health-links");
  links.replaceChildren("Runs and assets in the Dagster UI: ");
  for (const asset of ["consolidation_reports", "node_merges", "kg_edges"]) {
    const a = el("a", asset);
    a.href = data.dagster_ui.replace(/\/$/, "") + "/assets/" + asset;
    a.target = "_blank";
    links.append(a, " ");
  }
  const box = $("health-consolidation");
  box.replaceChildren(el("h2", "Consolidation (latest run of each operation)"));
  const operations = Object.entries(data.consolidation);
  if (!operations.length) box.append(el("p", "No consolidation has run yet (kg-pipelines consolidate prune|merge-edges|summarize)."));
  for (const [operation, entry] of operations) {
    box.append(el("h3", operation + " — " + entry.run_id + " (" + new Date(entry.written_at * 1000).toLocaleString() + ")"));
    box.append(dagsterRuns(data.dagster_ui, "consolidate_" + operation.replace("-", "_")));
    const scalars = Object.entries(entry.report).filter(([, v]) => v === null || typeof v !== "object");
    figures(box, scalars);
    for (const [name, value] of Object.entries(entry.report)) {
      if (!Array.isArray(value) || !value.length) continue;
      const total = entry.report[name + "_total"] || value.length;
      box.append(el("div", name + ": " + total + (total > value.length ? " (first " + value.length + " shown)" : "")));
      box.append(el("div", value.slice(0, 20).map((v) => typeof v === "object" ? JSON.stringify(v) : String(v)).join(", ")));
    }
  }
  const merges = $("health-merges");
  merges.replaceChildren(el("h2", "Merges of duplicate nodes (newest first)"), dagsterRuns(data.dagster_ui, "dedup_nodes"));
  if (!data.merges.length) merges.append(el("p", "No node has been merged."));
  else {
    const table = el("table");
    const head = el("tr");
    for (const name of ["kept", "merged into it", "type", "score", "decided by", "when", "undone"]) head.append(el("th", name));
    table.append(head);
    for (const m of data.merges) {
      const row = el("tr");
      for (const value of [m.canonical_name, m.duplicate_name, m.node_type, m.score === null ? "" : m.score.toFixed(3),
        m.decision, m.merged_at, m.undone_at || ""]) row.append(el("td", value));
      table.append(row);
    }
    merges.append(table);
  }
}

// what the page's own tests (and a curious user's console) can reach
window.kgExplorer = { graph: () => cy };

// -- wiring ------------------------------------------------------------------------------------------
function showView(id) {
  for (const view of document.querySelectorAll(".view")) view.hidden = view.id !== id;
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === id);
  if (id === "health-view") showHealth().catch(showError);
}

document.addEventListener("DOMContentLoaded", () => {
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    search($("term").value.trim()).catch(showError);
  });
  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    ask($("question").value.trim()).catch(showError);
  });
  $("auth").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem("kg-api-key", $("api-key").value);
    $("auth").hidden = true;
    clearError();
  });
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));
  const params = new URLSearchParams(location.search);
  if (params.get("term")) {
    $("term").value = params.get("term");
    search(params.get("term")).catch(showError);
  } else if (params.get("q")) {
    $("question").value = params.get("q");
    ask(params.get("q")).catch(showError);
  } else {
    api("/health").then((health) => {
      if (!health.snapshot || !health.snapshot.nodes) {
        setStatus("The graph is empty. Ingest documents first: kg-pipelines ingest DIR --collection NAME " +
          "(or drop files into the inbox with make dev running), then search a name here.");
      } else {
        setStatus("The graph holds " + health.snapshot.nodes + " nodes and " + health.snapshot.edges +
          " edges. Search a name or ask a question.");
      }
    }).catch(showError);
  }
});
