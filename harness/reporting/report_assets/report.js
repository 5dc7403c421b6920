// report.html's script: draws the matrix and each cell's drill-down from the JSON in the page.
// Plain ES5 in one function, no dependencies: the page must work offline.
window.onerror = function (msg) { document.body.dataset.errors = (document.body.dataset.errors || "") + msg + ";"; };
(function () {
  var DATA = JSON.parse(document.getElementById("data").textContent), M = DATA.matrix;
  function el(tag, attrs, text) { var e = document.createElement(tag); for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text; return e; }
  function bytes(v) { if (v === null || v === undefined) return "n/a"; var u = ["B","KiB","MiB","GiB","TiB"], i = 0, s = v < 0 ? "-" : "";
    v = Math.abs(v); while (v >= 1024 && i < 4) { v /= 1024; i++; } return s + (i ? v.toFixed(2) : v) + " " + u[i]; }
  function outcome(c) { if (c.status !== "ok") return c.status; var s = (c.steps || []).filter(function (x) { return x.verdict !== "skipped"; });
    return s.length ? s[s.length - 1].verdict : "ok"; }
  function cellText(c) { if (c.status !== "ok") return c.status; var s = (c.steps || []).filter(function (x) { return x.verdict !== "skipped"; });
    if (!s.length) return c.exit ? "exit: " + c.exit : "ok"; var last = s[s.length - 1];
    return last.verdict + (last.left !== null && last.left !== undefined ? ", " + bytes(last.left) + " left" : ""); }
  var changed = {}; ((M.compare || {}).changed || []).concat((M.sweep || {}).changes || []).forEach(function (c) { changed[c.scenario + "|" + c.env] = c; });
  var claimsFor = {}; (M.claims || []).forEach(function (cl) { for (var env in cl.results) {
    var key = cl.scenario + "|" + env; (claimsFor[key] = claimsFor[key] || []).push([cl, cl.results[env]]); } });
  document.getElementById("note").textContent = M.note || "";
  document.getElementById("machine").textContent = "Measured on: " + (M.machine || "unknown machine");
  var legend = document.getElementById("legend"), LEG = M.legend || {};
  ["all", "part", "none", "n/a"].forEach(function (b) { var it = el("span", {"class": "key back-" + b.replace("/", "")}, LEG[b] || b); legend.appendChild(it); });
  legend.appendChild(el("span", {"class": "hint"}, "The word says why; \u2713n / \u2717n: claim n (notes below the table) confirmed / contradicted here. " +
    "Click a cell for its timeline, every step and its environment."));
  function glance(c) { return c.glance || {back: "n/a", word: c.status}; }
  function header(env) { var th = el("th", {"class": "env"}, env), f = (M.columns || {})[env]; if (!f) return th;
    var rel = Object.keys(f.frameworks || {}).map(function (k) { return k + " " + f.frameworks[k]; });
    if (f.python) rel.push("Python " + f.python); if (f.cuda) rel.push("CUDA " + f.cuda); if (f.gpu) rel.push(f.gpu.replace(/^NVIDIA /, ""));
    th.appendChild(el("div", {"class": "rel"}, rel.join(" \u00b7 "))); return th; }
  var noteNo = {}, notes = []; (M.claims || []).forEach(function (cl) { for (var e in cl.results) if (cl.results[e].outcome !== "untestable") {
    if (!(cl.id in noteNo)) { notes.push(cl); noteNo[cl.id] = notes.length; } } });
  document.getElementById("tol").textContent = "Tolerances: " + M.tolerances.text + ".";
  var table = el("table", {"class": "matrix", "id": "matrix-table"}), head = el("tr");
  head.appendChild(el("th", {"class": "scn"}, "scenario")); M.environments.forEach(function (e) { head.appendChild(header(e)); });
  table.appendChild(head); var counts = {};
  function scenarioCell(name) { var th = el("th", {"class": "scn"});  // breaks only after / @ _ (copying the name stays exact)
    name.split(/([\/@_])/).forEach(function (part) { th.appendChild(document.createTextNode(part)); if (/^[\/@_]$/.test(part)) th.appendChild(el("wbr")); });
    return th; }
  M.scenarios.forEach(function (name) { var tr = el("tr"); tr.appendChild(scenarioCell(name));
    M.environments.forEach(function (env) { var c = (M.cells[name] || {})[env], key = name + "|" + env;
      if (!c) { tr.appendChild(el("td", {"class": "na"}, "n/a")); return; }
      var g = glance(c); counts[c.status] = (counts[c.status] || 0) + 1;
      var td = el("td", {"class": "cell back-" + g.back.replace("/", "") + (changed[key] ? " changed" : ""), "data-key": key,
        "data-verdict": outcome(c), "title": cellText(c)}, g.word + (g.left ? ", " + bytes(g.left) + " left" : ""));
      if (g.label) td.appendChild(el("div", {"class": "step"}, "at " + g.label));
      (claimsFor[key] || []).forEach(function (p) { if (p[1].outcome !== "untestable")
        td.appendChild(el("sup", {"title": p[0].says, "class": "claim"}, (p[1].outcome === "confirmed" ? " \u2713" : " \u2717") + noteNo[p[0].id])); });
      td.onclick = function () { location.hash = "cell=" + encodeURIComponent(key); };
      tr.appendChild(td); });
    table.appendChild(tr); });
  var scroller = el("div", {"class": "scroll"}); scroller.appendChild(table); document.getElementById("matrix").appendChild(scroller);
  if (notes.length) { var box = document.getElementById("claims"); box.appendChild(el("h2", {}, "Notes: the articles' claims"));
    var ol = el("ol", {"class": "claims"}); notes.forEach(function (cl) { var where = [];
      for (var e in cl.results) if (cl.results[e].outcome !== "untestable") where.push(cl.results[e].outcome + " in " + e);
      ol.appendChild(el("li", {"id": "note-" + noteNo[cl.id]}, "\u201c" + cl.says + "\u201d (" + cl.seed + ", " + cl.scenario + "): " + where.join("; "))); });
    box.appendChild(ol); }
  var cl = { confirmed: 0, contradicted: 0, untestable: 0 };
  (M.claims || []).forEach(function (c) { for (var e in c.results) cl[c.results[e].outcome]++; });
  document.getElementById("summary").textContent = Object.keys(counts).map(function (k) { return counts[k] + " " + k; }).join(", ") +
    " | claims: " + cl.confirmed + " confirmed, " + cl.contradicted + " contradicted, " + cl.untestable + " untestable";
  if (M.sweep) { var sw = document.getElementById("changes"); sw.appendChild(el("h2", {}, "Changes across " + M.sweep.package + " releases"));
    var sl = el("ul"); M.sweep.changes.forEach(function (c) { sl.appendChild(el("li", {}, c.scenario + " changed in " + c.release + ": " +
      c.before_release + " " + c.before + " \u2192 " + c.release + " " + c.after)); });
    for (var pin in M.sweep.skipped) sl.appendChild(el("li", {}, pin + ": not run (" + M.sweep.skipped[pin] + ")"));
    if (!M.sweep.changes.length) sl.appendChild(el("li", {}, "no answer changed across these releases")); sw.appendChild(sl); }
  if (M.compare) { var ch = document.getElementById("changes"); ch.appendChild(el("h2", {}, "Changed since " + M.compare.other));
    var ul = el("ul"); M.compare.changed.forEach(function (c) { ul.appendChild(el("li", {}, c.scenario + " @ " + c.env + ": " + c.before + " \u2192 " + c.after)); });
    if (!M.compare.changed.length) ul.appendChild(el("li", {}, "nothing")); ch.appendChild(ul); }
  function nice(v) { var e = Math.pow(10, Math.floor(Math.log(v) / Math.LN10)), m = v / e; return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * e; }
  function chart(d) {
    var NS = "http://www.w3.org/2000/svg", W = 900, H = 260, P = 48, s = d.timeline.samples, cols = d.timeline.columns;
    var svg = document.createElementNS(NS, "svg"); svg.setAttribute("viewBox", "0 0 " + W + " " + H); svg.setAttribute("width", "100%");
    svg.setAttribute("id", "timeline");
    var cps = d.checkpoints || [], ts = s.map(function (r) { return r[0]; }).concat(cps.map(function (c) { return c.t; }));
    if (!ts.length) { svg.appendChild(document.createElementNS(NS, "text")).textContent = "no timeline"; return svg; }
    var t0 = Math.min.apply(null, ts), t1 = Math.max.apply(null, ts) || t0 + 1, ymax = 1;
    s.forEach(function (r) { for (var i = 1; i < r.length; i++) if (r[i] > ymax) ymax = r[i]; });
    cps.forEach(function (c) { for (var f in c.view || {}) if ((c.view[f].in_use || 0) > ymax) ymax = c.view[f].in_use; });
    function x(tv) { return P + (W - 2 * P) * (tv - t0) / Math.max(t1 - t0, 1e-6); } function y(v) { return H - 24 - (H - 48) * v / ymax; }
    function add(tag, attrs) { var e = document.createElementNS(NS, tag); for (var k in attrs) e.setAttribute(k, attrs[k]); svg.appendChild(e); return e; }
    add("line", {x1: P, y1: H - 24, x2: W - P, y2: H - 24, stroke: "#999"}); add("line", {x1: P, y1: 24, x2: P, y2: H - 24, stroke: "#999"});
    var unit = ymax >= 1073741824 ? 1073741824 : 1048576, uname = unit === 1048576 ? "MiB" : "GiB";
    var ystep = nice(ymax / unit / 4) * unit, span = Math.max(t1 - t0, 1e-6), xstep = nice(span / 8);
    for (var yv = 0; yv <= ymax * 1.0001; yv += ystep) { add("line", {x1: P - 4, y1: y(yv), x2: W - P, y2: y(yv), stroke: "#eee", "class": "ytick"});
      add("text", {x: P - 6, y: y(yv) + 4, "font-size": 10, "text-anchor": "end"}).textContent = +(yv / unit).toFixed(2); }
    for (var xv = 0; xv <= span * 1.0001; xv += xstep) { add("line", {x1: x(t0 + xv), y1: H - 24, x2: x(t0 + xv), y2: H - 20, stroke: "#999", "class": "xtick"});
      add("text", {x: x(t0 + xv), y: H - 10, "font-size": 10, "text-anchor": "middle"}).textContent = +xv.toFixed(2); }
    add("text", {x: 4, y: 14, "font-size": 11, "class": "axis-y"}).textContent = uname;
    add("text", {x: W - P, y: H - 10, "font-size": 10, "text-anchor": "start", "class": "axis-x"}).textContent = " s";
    var colors = {rss: "#888", nvml_device: "#1f77b4", nvml_process: "#ff7f0e"}, drawn = 0;
    cols.slice(1).forEach(function (name, i) { var pts = s.filter(function (r) { return r[i + 1] !== null; })
        .map(function (r) { return x(r[0]).toFixed(1) + "," + y(r[i + 1]).toFixed(1); });
      if (pts.length > 1) { add("polyline", {points: pts.join(" "), fill: "none", stroke: colors[name] || "#000", "stroke-width": 1.5, "data-series": name}); drawn++; } });
    var lastLabel = -1e9, group = null;  // checkpoint numbers: one label per 18 px, close ones as a range "3-7"
    cps.forEach(function (c, i) { var cx = x(c.t); add("line", {x1: cx, y1: 24, x2: cx, y2: H - 24, stroke: "#444", "stroke-dasharray": "3,3"});
      if (cx - lastLabel >= 28) { group = add("text", {x: cx, y: 20, "font-size": 10, "text-anchor": "middle", "class": "cp-label"});
        group.textContent = String(i + 1); group.dataset.first = i + 1; lastLabel = cx; }
      else { group.textContent = group.dataset.first + "-" + (i + 1); }
      for (var f in c.view || {}) if (c.view[f].in_use !== null && c.view[f].in_use !== undefined)
        add("circle", {cx: cx, cy: y(c.view[f].in_use), r: 4, fill: "#2ca02c", "data-series": "framework"}); });
    svg.setAttribute("data-drawn", drawn); return svg; }
  function kv(obj) { var tb = el("table", {"class": "kv"}); for (var k in obj) { if (obj[k] === null || obj[k] === undefined || obj[k] === "") continue;
      var tr = el("tr"); tr.appendChild(el("td", {}, k)); tr.appendChild(el("td", {}, typeof obj[k] === "object" ? JSON.stringify(obj[k]) : String(obj[k])));
      tb.appendChild(tr); } return tb; }
  var SERIES = [["nvml_device", "#1f77b4", "GPU used (device)"], ["nvml_process", "#ff7f0e", "GPU of this cell's processes"],
    ["rss", "#888", "host RSS"], ["framework", "#2ca02c", "framework in_use (at checkpoints)"]];
  function show(key) { var box = document.getElementById("detail"), d = DATA.details[key], parts = key.split("|"); box.innerHTML = "";
    box.appendChild(el("h2", {}, parts[0] + " @ " + parts[1]));
    if (!d) { box.appendChild(el("p", {}, "No record for this cell (" + (((M.cells[parts[0]] || {})[parts[1]] || {}).status || "missing") + ").")); return; }
    box.appendChild(el("p", {}, (d.scenario.title || "") + " \u2014 " + (d.scenario.technique || "") + (d.scenario.seed ? " (source: " + d.scenario.seed + ")" : "")));
    box.appendChild(el("p", {"class": "summary"}, "status: " + d.status + (d.error ? " \u2014 " + d.error.type + ": " + d.error.message : "")));
    var svg = chart(d), legend = el("div", {"class": "legend"});
    SERIES.forEach(function (p) { if (!svg.querySelector('[data-series="' + p[0] + '"]')) return;  // only what is drawn
      var sp = el("span", {}, "\u25a0 " + p[2]); sp.style.color = p[1]; legend.appendChild(sp); });
    box.appendChild(legend); box.appendChild(svg);
    var marks = el("ol", {"class": "cps"}), t00 = d.timeline.samples.length ? d.timeline.samples[0][0] : ((d.checkpoints || [])[0] || {}).t;
    (d.checkpoints || []).forEach(function (c) { marks.appendChild(el("li", {}, c.label + " (" + (c.t - t00).toFixed(2) + " s)")); });
    box.appendChild(marks);
    var steps = el("ul"); ((d.verdicts || {}).steps || []).forEach(function (st) { steps.appendChild(el("li", {}, st.label + ": " + st.verdict +
      (st.left !== undefined && st.left !== null ? " (" + bytes(st.left) + " left of " + bytes(st.grown) + ", meter " + st.meter + ")" : "") +
      (st.detail ? ": " + st.detail : ""))); });
    if ((d.verdicts || {}).exit) steps.appendChild(el("li", {}, "after exit: " + d.verdicts.exit.verdict));
    var v = d.verdicts || {}; if (v.floor_basis) steps.appendChild(el("li", {}, "driver floor: " + v.floor_basis +
      (v.runtime_cost !== null && v.runtime_cost !== undefined ? " (runtime cost " + bytes(v.runtime_cost) + ")" : "")));
    box.appendChild(steps);
    var cls = claimsFor[key] || []; if (cls.length) { box.appendChild(el("h2", {}, "Claims")); var ul = el("ul", {"class": "claims"});
      cls.forEach(function (p) { ul.appendChild(el("li", {}, p[1].outcome + ": " + p[0].says + " (" + p[0].seed + "; " + p[1].why + ")")); }); box.appendChild(ul); }
    box.appendChild(el("h2", {}, "Environment")); box.appendChild(kv(Object.assign({}, d.env, d.facts, {driver: d.host.driver, gpu: d.host.gpu})));
    if (d.error && d.error.traceback) { box.appendChild(el("h2", {}, "Traceback")); box.appendChild(el("pre", {}, d.error.traceback)); }
    box.appendChild(el("h2", {}, "stderr (tail)")); box.appendChild(el("pre", {}, d.stderr_tail || "(empty)")); }
  function route() { var m = /cell=([^&]+)/.exec(location.hash), keys = Object.keys(DATA.details);
    if (m) show(decodeURIComponent(m[1])); else if (keys.length === 1) show(keys[0]); }  // a one-cell report opens on its cell
  window.addEventListener("hashchange", route); route();
  document.body.dataset.ready = "1";
})();
