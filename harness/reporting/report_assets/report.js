// report.html's script: draws the matrix and each cell's drill-down from the JSON in the page.
// Plain ES5 in one function, no dependencies: the page must work offline.
window.onerror = function (msg) { document.body.dataset.errors = (document.body.dataset.errors || "") + msg + ";"; };
(function () {
  var DATA = JSON.parse(document.getElementById("data").textContent), M = DATA.matrix;
  function el(tag, attrs, text) { var e = document.createElement(tag); for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text; return e; }
  function bytes(v) { if (v === null || v === undefined) return "n/a"; var u = ["B","KiB","MiB","GiB","TiB"], i = 0, s = v < 0 ? "-" : "";
    v = Math.abs(v); while (v >= 1024 && i < 4) { v /= 1024; i++; } return s + (i ? v.toFixed(2) : v) + " " + u[i]; }
  var changed = {}; ((M.compare || {}).changed || []).concat((M.sweep || {}).changes || []).forEach(function (c) { changed[c.scenario + "|" + c.env] = c; });
  var claimsFor = {}; (M.claims || []).forEach(function (cl) { for (var env in cl.results) {
    var key = cl.scenario + "|" + env; (claimsFor[key] = claimsFor[key] || []).push([cl, cl.results[env]]); } });
  document.getElementById("note").textContent = M.note || "";
  document.getElementById("machine").textContent = "Measured on: " + (M.machine || "unknown machine");
  var legend = document.getElementById("legend"), LEG = M.legend || {};
  ["all", "part", "none", "n/a"].forEach(function (b) { var it = el("span", {"class": "key back-" + b.replace("/", "")}, LEG[b] || b); legend.appendChild(it); });
  var decided = (M.claims || []).some(function (cl) { for (var e in cl.results) if (cl.results[e].outcome !== "untestable") return true; return false; });
  legend.appendChild(el("span", {"class": "hint"}, "The word says why" + (decided ? "; \u2713n / \u2717n: claim n (notes below the table) confirmed / contradicted here" : "") +
    ". Click a cell for its timeline, every step and its environment."));
  if (M.machine === "no GPU: host memory (RSS) only") document.getElementById("note").parentNode.insertBefore(el("p", {"class": "gpu-note"},
    "No NVIDIA GPU in this run: it measured host memory (RSS) only" + (M.repro ? "." : ", so the claims about GPU memory cannot be decided here.")), document.getElementById("note"));
  function glance(c) { return c.glance || {back: "n/a", word: c.status, text: c.status}; }
  function header(env) { var th = el("th", {"class": "env"}, env), f = (M.columns || {})[env]; if (!f) return th;
    var rel = Object.keys(f.frameworks || {}).map(function (k) { return k + " " + f.frameworks[k]; });
    if (f.python) rel.push("Python " + f.python); if (f.cuda) rel.push("CUDA " + f.cuda); if (f.gpu) rel.push(f.gpu.replace(/^NVIDIA /, ""));
    th.appendChild(el("div", {"class": "rel"}, rel.join(" \u00b7 ")));
    if ((M.marked || {})[env]) th.appendChild(el("div", {"class": "mark"}, M.marked[env])); return th; }
  var noteNo = {}, notes = []; (M.claims || []).forEach(function (cl) { for (var e in cl.results) if (cl.results[e].outcome !== "untestable") {
    if (!(cl.id in noteNo)) { notes.push(cl); noteNo[cl.id] = notes.length; } } });
  document.getElementById("tol").textContent = "Tolerances: " + (M.tolerances_text || M.tolerances.text) + ".";
  var table = el("table", {"class": "matrix", "id": "matrix-table"}), head = el("tr");
  head.appendChild(el("th", {"class": "scn"}, "scenario")); M.environments.forEach(function (e) { head.appendChild(header(e)); });
  table.appendChild(head); var counts = {};
  function scenarioCell(name) { var th = el("th", {"class": "scn"});  // breaks only after / @ _ (copying the name stays exact)
    name.split(/([\/@_])/).forEach(function (part) { th.appendChild(document.createTextNode(part)); if (/^[\/@_]$/.test(part)) th.appendChild(el("wbr")); });
    return th; }
  // Rows by framework, those with the most measured answers first (a framework that could not run here goes last).
  var answered = {}; M.scenarios.forEach(function (name) { var fam = name.split("/")[0]; answered[fam] = answered[fam] || 0;
    M.environments.forEach(function (env) { var c = (M.cells[name] || {})[env]; if (c && glance(c).back !== "n/a") answered[fam]++; }); });
  var rows = M.scenarios.slice().sort(function (a, b) { var fa = a.split("/")[0], fb = b.split("/")[0];
    return fa === fb ? (a < b ? -1 : 1) : (answered[fb] - answered[fa] || (fa < fb ? -1 : 1)); });
  rows.forEach(function (name) { var tr = el("tr"); tr.appendChild(scenarioCell(name));
    M.environments.forEach(function (env) { var c = (M.cells[name] || {})[env], key = name + "|" + env;
      if (!c) { tr.appendChild(el("td", {"class": "na"}, "n/a")); return; }
      var g = glance(c); counts[c.status] = (counts[c.status] || 0) + 1;
      var td = el("td", {"class": "cell back-" + g.back.replace("/", "") + (changed[key] ? " changed" : ""), "data-key": key,
        "data-verdict": g.verdict || c.status, "title": g.text}, g.text);
      if (g.label) td.appendChild(el("div", {"class": "step"}, "at " + g.label));
      var why = g.back === "n/a" ? (c.gpu_only || c.error || "") : "";  // an n/a cell says why where it is shown
      if (why) td.appendChild(el("div", {"class": "why"}, why));
      (claimsFor[key] || []).forEach(function (p) { if (p[1].outcome !== "untestable")
        td.appendChild(el("sup", {"title": p[0].says, "class": "claim"}, (p[1].outcome === "confirmed" ? " \u2713" : p[1].outcome === "not reproduced" ? " \u25cb" : " \u2717") + noteNo[p[0].id])); });
      td.onclick = function () { location.hash = "cell=" + encodeURIComponent(key); };
      tr.appendChild(td); });
    table.appendChild(tr); });
  var scroller = el("div", {"class": "scroll"}); scroller.appendChild(table); document.getElementById("matrix").appendChild(scroller);
  if (notes.length) { var box = document.getElementById("claims"); box.appendChild(el("h2", {}, "Notes: the articles' claims"));
    var ol = el("ol", {"class": "claims"}); notes.forEach(function (cl) { var where = [];
      for (var e in cl.results) if (cl.results[e].outcome !== "untestable") where.push(cl.results[e].outcome + " in " + e);
      ol.appendChild(el("li", {"id": "note-" + noteNo[cl.id]}, "\u201c" + cl.says + "\u201d (" + cl.seed + ", " + cl.scenario + "): " + where.join("; "))); });
    box.appendChild(ol); }
  var cl = { confirmed: 0, contradicted: 0, "not reproduced": 0, untestable: 0 }, undecided = 0;
  (M.claims || []).forEach(function (c) { var said = false, any = false;  // undecided: claims, as matrix.md counts them
    for (var e in c.results) { cl[c.results[e].outcome]++; any = true; if (c.results[e].outcome !== "untestable") said = true; }
    if (any && !said) undecided++; });
  document.getElementById("summary").textContent = Object.keys(counts).map(function (k) { return counts[k] + " " + k; }).join(", ") + (M.repro ? "" :
    " | claims: " + cl.confirmed + " confirmed, " + cl.contradicted + " contradicted, " + cl["not reproduced"] + " not reproduced, " + (M.machine === "no GPU: host memory (RSS) only" ?
    "no GPU here, so the " + undecided + " claims about GPU memory are not decided" : cl.untestable + " untestable"));
  if (M.sweep) { var sw = document.getElementById("changes"); sw.appendChild(el("h2", {}, "Changes across " + M.sweep.package + " releases"));
    var sl = el("ul"); M.sweep.changes.forEach(function (c) { sl.appendChild(el("li", {}, c.scenario + " changed in " + c.release + ": " +
      c.before_release + " " + c.before + " \u2192 " + c.release + " " + c.after)); });
    for (var pin in M.sweep.skipped) sl.appendChild(el("li", {}, pin + ": not run (" + M.sweep.skipped[pin] + ")"));
    if (!M.sweep.changes.length) sl.appendChild(el("li", {}, "no answer changed across these releases")); sw.appendChild(sl); }
  if (M.compare) { var ch = document.getElementById("changes"); ch.appendChild(el("h2", {}, "Changed since " + M.compare.other));
    var ul = el("ul"); M.compare.changed.forEach(function (c) { ul.appendChild(el("li", {}, c.scenario + " @ " + c.env + ": " + c.before + " \u2192 " + c.after)); });
    if (!M.compare.changed.length) ul.appendChild(el("li", {}, "nothing")); ch.appendChild(ul); }
  var SERIES = [["nvml_device", "#1f77b4", "GPU used (device)"], ["nvml_process", "#ff7f0e", "GPU of this cell's processes"],
    ["rss", "#888", "host RSS"], ["framework", "#2ca02c", "framework in_use (at checkpoints)"]];
  function timelineData(d) {  // the series as rows {t: s from the cell's start, s: series, v: bytes}, the checkpoints
    var s = d.timeline.samples, cols = d.timeline.columns, cps = d.checkpoints || [];
    var ts = s.map(function (r) { return r[0]; }).concat(cps.map(function (c) { return c.t; }));
    if (!ts.length) return null;
    var t0 = Math.min.apply(null, ts), rows = [], fw = [], present = {};
    cols.slice(1).forEach(function (name, i) { s.forEach(function (r) { if (r[i + 1] !== null && r[i + 1] !== undefined) {
      rows.push({t: r[0] - t0, s: name, v: r[i + 1]}); present[name] = true; } }); });
    cps.forEach(function (c) { for (var f in c.view || {}) if (c.view[f].in_use !== null && c.view[f].in_use !== undefined) {
      fw.push({t: c.t - t0, v: c.view[f].in_use}); present.framework = true; } });
    // Inside a pool mapped at the first touch, the framework's own count is a line at 0 on the device's
    // scale: it gets its own axis (right, green) wherever it stays under a twentieth of the rest.
    var fwmax = 0, rest = d.floor ? d.floor.hi : 1;
    fw.forEach(function (r) { if (r.v > fwmax) fwmax = r.v; }); rows.forEach(function (r) { if (r.v > rest) rest = r.v; });
    return {t0: t0, span: Math.max.apply(null, ts) - t0, rows: rows, fw: fw, present: present, fwmax: fwmax,
            ownAxis: fwmax > 0 && fwmax * 20 < rest,
            marks: cps.map(function (c, i) { return {t: c.t - t0, n: i + 1}; })};
  }
  function drawChart(d, data, holder) {  // Vega (vega-embed.js), rendered to SVG: a whole-cell panel and a zoom on the checkpoints
    if (!data) { holder.textContent = "no timeline"; holder.dataset.drawn = "0"; return; }
    var W = Math.max(280, Math.min(820, (document.documentElement.clientWidth || 820) - 110)), H = 160, ymax = 1, floor = d.floor || null;  // drawn at the page's width: a phone reads its axes
    var fwmax = data.fwmax, own = data.ownAxis;
    data.rows.forEach(function (r) { if (r.v > ymax) ymax = r.v; });
    if (floor && floor.hi > ymax) ymax = floor.hi;
    if (!own && fwmax > ymax) ymax = fwmax;
    var unit = ymax >= 1073741824 ? 1073741824 : 1048576, uname = unit === 1048576 ? "MiB" : "GiB";
    var funit = own ? (fwmax >= 1073741824 ? 1073741824 : fwmax >= 1048576 ? 1048576 : 1024) : unit;
    var fname = {1073741824: "GiB", 1048576: "MiB", 1024: "KiB"}[funit];
    function scaled(list, by) { return list.map(function (r) { return {t: r.t, s: r.s, v: r.v / (by || unit)}; }); }
    var m = data.marks, z0 = m.length ? m[0].t : 0, z1 = m.length ? m[m.length - 1].t : data.span, pad = Math.max((z1 - z0) * 0.05, 0.05);
    z0 = Math.max(0, z0 - pad); z1 = Math.min(data.span, z1 + pad); if (z1 <= z0) z1 = z0 + 0.1;
    var labels = [], last = -1e9, group = null;  // numbers 28 px apart at least; closer ones as a range "3-7"
    m.forEach(function (c) { var px = (c.t - z0) / (z1 - z0) * W;
      if (px - last >= 28) { group = {t: c.t, first: c.n, text: String(c.n)}; labels.push(group); last = px; }
      else { group.text = group.first + "-" + c.n; } });
    var colors = SERIES.filter(function (p) { return data.present[p[0]]; });
    var band = floor ? [{lo: floor.lo / unit, hi: floor.hi / unit, pre: floor.pre / unit}] : [];
    function panel(title, domain, top, numbered) {
      var marks = [
        {type: "rect", from: {data: "band"}, encode: {enter: {x: {value: 0}, x2: {value: W}, y: {scale: "y", field: "hi"},
          y2: {scale: "y", field: "lo"}, fill: {value: "#2ca02c"}, fillOpacity: {value: 0.12}}}},
        {type: "rule", from: {data: "band"}, encode: {enter: {x: {value: 0}, x2: {value: W}, y: {scale: "y", field: "pre"},
          stroke: {value: "#2ca02c"}, strokeDash: {value: [5, 3]}}}},
        {type: "group", from: {facet: {name: "series", data: "rows", groupby: "s"}}, marks: [{type: "line", from: {data: "series"},
          encode: {enter: {x: {scale: "x", field: "t"}, y: {scale: "y", field: "v"}, stroke: {scale: "color", field: "s"},
            strokeWidth: {value: 1.5}}}}]},
        {type: "symbol", from: {data: "fw"}, encode: {enter: {x: {scale: "x", field: "t"}, y: {scale: own ? "yfw" : "y", field: "v"},
          fill: {value: "#2ca02c"}, size: {value: 30}}}},
        {type: "rule", from: {data: "marks"}, encode: {enter: {x: {scale: "x", field: "t"}, y: {value: 0}, y2: {value: H},
          stroke: {value: "#444"}, strokeDash: {value: [3, 3]}, strokeOpacity: {value: 0.6}}}}];
      var outer = [{type: "group", encode: {enter: {width: {value: W}, height: {value: H}, clip: {value: true}}}, marks: marks}];
      if (numbered) outer.push({type: "text", name: "cp_labels", from: {data: "labels"}, encode: {enter: {x: {scale: "x", field: "t"},
        y: {value: -4}, text: {field: "text"}, align: {value: "center"}, fontSize: {value: 10}}}});
      return {type: "group", title: {text: title, anchor: "start", fontSize: 11, offset: numbered ? 14 : 4},
        encode: {enter: {y: {value: top}, width: {value: W}, height: {value: H}}},
        scales: [{name: "x", type: "linear", domain: domain, range: [0, W], zero: false, nice: false}],
        axes: [{orient: "bottom", scale: "x", title: "seconds from the cell's start", tickCount: 8},
               {orient: "left", scale: "y", title: uname, tickCount: 5, grid: true}].concat(own ? [{orient: "right", scale: "yfw",
               title: "framework in_use (" + fname + ")", tickCount: 5, titleColor: "#2ca02c", labelColor: "#2ca02c"}] : []),
        marks: outer}; }
    var spec = {width: W, height: 2 * H + 90, padding: 5, autosize: "pad",
      data: [{name: "rows", values: scaled(data.rows)}, {name: "fw", values: scaled(data.fw, funit)}, {name: "marks", values: m},
             {name: "labels", values: labels}, {name: "band", values: band}],
      scales: [{name: "y", type: "linear", domain: [0, ymax / unit], nice: true, zero: true, range: [H, 0]},
               {name: "yfw", type: "linear", domain: [0, Math.max(fwmax, 1) / funit], nice: true, zero: true, range: [H, 0]},
               {name: "color", type: "ordinal", domain: colors.map(function (p) { return p[0]; }), range: colors.map(function (p) { return p[1]; })}],
      marks: [panel("the whole cell", [0, Math.max(data.span, 0.1)], 0, false), panel("the checkpoints, zoomed", [z0, z1], H + 70, true)]};
    window.vegaEmbed(holder, spec, {renderer: "svg", actions: false, mode: "vega"})
      .then(function () { holder.dataset.drawn = String(colors.length); holder.dataset.ownAxis = own ? "1" : "0"; })
      .catch(function (e) { document.body.dataset.errors = (document.body.dataset.errors || "") + e + ";"; });
  }
  function drawPerGpu(d, t0, holder) {  // a script given several GPUs: each GPU's own line, at the checkpoints (Vega)
    var rows = [], ymax = 1; (d.per_gpu || []).forEach(function (r) { [["device", "device"], ["process", "this cell's processes"]].forEach(function (k) {
      if (r[k[0]] === null || r[k[0]] === undefined) return; rows.push({t: r.t - t0, s: "GPU " + r.gpu + ", " + k[1], v: r[k[0]]});
      if (r[k[0]] > ymax) ymax = r[k[0]]; }); });
    if (!rows.length) { holder.dataset.drawn = "0"; return; }
    var W = Math.max(280, Math.min(820, (document.documentElement.clientWidth || 820) - 110)), H = 140;
    var unit = ymax >= 1073741824 ? 1073741824 : 1048576, uname = unit === 1048576 ? "MiB" : "GiB";
    var spec = {width: W, height: H, padding: 5, autosize: "pad",
      data: [{name: "rows", values: rows.map(function (r) { return {t: r.t, s: r.s, v: r.v / unit}; })}],
      scales: [{name: "x", type: "linear", domain: {data: "rows", field: "t"}, range: "width", zero: false},
               {name: "y", type: "linear", domain: [0, ymax / unit], nice: true, zero: true, range: "height"},
               {name: "color", type: "ordinal", domain: {data: "rows", field: "s"}, range: "category"}],
      axes: [{orient: "bottom", scale: "x", title: "seconds from the cell's start"}, {orient: "left", scale: "y", title: uname, grid: true}],
      legends: [{stroke: "color", orient: "bottom", direction: "vertical"}],
      marks: [{type: "group", from: {facet: {name: "series", data: "rows", groupby: "s"}}, marks: [{type: "line", from: {data: "series"},
        encode: {enter: {x: {scale: "x", field: "t"}, y: {scale: "y", field: "v"}, stroke: {scale: "color", field: "s"}, strokeWidth: {value: 1.5}}}},
        {type: "symbol", from: {data: "series"}, encode: {enter: {x: {scale: "x", field: "t"}, y: {scale: "y", field: "v"},
          fill: {scale: "color", field: "s"}, size: {value: 20}}}}]}]};
    window.vegaEmbed(holder, spec, {renderer: "svg", actions: false, mode: "vega"})
      .then(function () { holder.dataset.drawn = String(rows.length); })
      .catch(function (e) { document.body.dataset.errors = (document.body.dataset.errors || "") + e + ";"; });
  }
  function kv(obj) { var tb = el("table", {"class": "kv"}); for (var k in obj) { if (obj[k] === null || obj[k] === undefined || obj[k] === "") continue;
      var tr = el("tr"); tr.appendChild(el("td", {}, k)); tr.appendChild(el("td", {}, typeof obj[k] === "object" ? JSON.stringify(obj[k]) : String(obj[k])));
      tb.appendChild(tr); } return tb; }
  function show(key) { var box = document.getElementById("detail"), d = DATA.details[key], parts = key.split("|"); box.innerHTML = "";
    box.appendChild(el("h2", {}, parts[0] + " @ " + parts[1])); box.appendChild(el("a", {"href": "#matrix", "class": "back"}, "\u2191 the matrix"));
    if (!d) { box.appendChild(el("p", {}, "No record for this cell (" + (((M.cells[parts[0]] || {})[parts[1]] || {}).status || "missing") + ").")); return; }
    box.appendChild(el("p", {}, (d.scenario.title || "") + " \u2014 " + (d.scenario.technique || "") + (d.scenario.seed ? " (source: " + d.scenario.seed + ")" : "")));
    box.appendChild(el("p", {"class": "summary"}, "status: " + d.status + (d.error ? " \u2014 " + d.error.type + ": " + d.error.message : "")));
    var data = timelineData(d), legend = el("div", {"class": "legend"}), holder = el("div", {"id": "timeline"});
    SERIES.forEach(function (p) { if (!data || !data.present[p[0]]) return;  // only what is drawn
      var own = p[0] === "framework" && data.ownAxis;
      var sp = el("span", {}, "\u25a0 " + p[2] + (own ? ", right axis" : "")); sp.style.color = p[1]; legend.appendChild(sp); });
    if (d.floor) legend.appendChild(el("span", {"class": "band"}, (d.floor.meter === "rss" ? "- - host memory before any framework call"
      : "- - pre-GPU floor (" + d.floor.meter + ")") + "; green band: where a step counts as released"));
    box.appendChild(legend); box.appendChild(holder); drawChart(d, data, holder);
    if ((d.per_gpu || []).length) { box.appendChild(el("h2", {}, "Per GPU, at each checkpoint"));
      var perGpu = el("div", {"id": "per-gpu"}); box.appendChild(perGpu); drawPerGpu(d, data ? data.t0 : 0, perGpu); }
    var marks = el("ol", {"class": "cps"}), t00 = d.timeline.samples.length ? d.timeline.samples[0][0] : ((d.checkpoints || [])[0] || {}).t;
    (d.checkpoints || []).forEach(function (c) { marks.appendChild(el("li", {}, c.label + " (" + (c.t - t00).toFixed(2) + " s)")); });
    box.appendChild(marks);
    var steps = el("ul"); ((d.verdicts || {}).steps || []).forEach(function (st) { steps.appendChild(el("li", {}, st.label + ": " + (st.word || st.verdict) +
      (st.left !== undefined && st.left !== null ? " (" + bytes(st.left) + " left of " + bytes(st.grown) + ", on " + ((d.meters || {})[st.meter] || st.meter) + ")" : "") +
      (st.detail ? ": " + st.detail : ""))); });
    if ((d.verdicts || {}).exit) steps.appendChild(el("li", {}, "after exit: " + d.verdicts.exit.verdict));
    var v = d.verdicts || {}; if (v.floor_basis) steps.appendChild(el("li", {}, "driver floor: " + v.floor_basis +
      (v.runtime_cost !== null && v.runtime_cost !== undefined ? " (runtime cost " + bytes(v.runtime_cost) + ")" : "")));
    box.appendChild(steps);
    (d.holders || []).forEach(function (h) { box.appendChild(el("h2", {}, "What holds the memory at " + h.label));
      var said = el("ul"); h.said.forEach(function (line) { said.appendChild(el("li", {}, line)); }); box.appendChild(said); });
    var cls = claimsFor[key] || []; if (cls.length) { box.appendChild(el("h2", {}, "Claims")); var ul = el("ul", {"class": "claims"});
      cls.forEach(function (p) { ul.appendChild(el("li", {}, p[1].outcome + ": " + p[0].says + " (" + p[0].seed + "; " + p[1].why + ")")); }); box.appendChild(ul); }
    box.appendChild(el("h2", {}, "Environment")); box.appendChild(kv(Object.assign({}, d.env, d.facts, {driver: d.host.driver, gpu: d.host.gpu})));
    if (d.error && d.error.traceback) { box.appendChild(el("h2", {}, "Traceback")); box.appendChild(el("pre", {}, d.error.traceback)); }
    box.appendChild(el("h2", {}, "stderr (tail)")); box.appendChild(el("pre", {}, d.stderr_tail || "(empty)")); }
  function route() { var m = /cell=([^&]+)/.exec(location.hash), keys = Object.keys(DATA.details);
    if (m) { var key = decodeURIComponent(m[1]); show(key);  // a link to a cell lands on its timeline, its grid cell marked
      [].forEach.call(document.querySelectorAll("td.cell"), function (td) { td.classList.toggle("selected", td.dataset.key === key); });
      window.scrollTo(0, 0); }  // the cell's page is the page's top: it opens in view, the grid below it
    else if (keys.length === 1) show(keys[0]);  // a one-cell report opens on its cell
    else document.getElementById("detail").innerHTML = ""; }  // back to the matrix alone
  window.addEventListener("hashchange", route); route();
  document.body.dataset.ready = "1";
})();
