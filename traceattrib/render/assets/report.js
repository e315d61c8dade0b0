// Lays out the traceattrib HTML report from the JSON in #data (made by traceattrib/render/html.py).
// Text from the trace is only ever set with textContent, or escaped before a tooltip shows it.
(function () {
  "use strict";
  var V = JSON.parse(document.getElementById("data").textContent);
  var COLORS = {linear: "#4e79a7", attention: "#f28e2b", communication: "#e15759", cast: "#76b7b2",
    norm: "#59a14f", elementwise: "#edc948", memory: "#b07aa1", other: "#9c755f", graph: "#bab0ac",
    overlapped: "#d0d4da", idle: "#e4e7ec", launch: "#7f8fa6", sync: "#4b5568", host: "#6f8fb8",
    unexplained: "#c5cbd6"};  // idle causes: the same colours in the strip and the step view's gaps
  var KIND_TINT = {decode: "rgba(78,121,167,0.06)", prefill: "rgba(242,142,43,0.10)",
    mixed: "rgba(176,122,161,0.10)", unknown: "rgba(156,117,95,0.06)"};

  // el, esc: dom.js
  function dur(ns) {
    if (ns === null || ns === undefined || isNaN(ns)) return "-";
    if (ns < 1e3) return ns.toFixed(0) + " ns";
    if (ns < 1e6) return ns < 1e4 ? (ns / 1e3).toFixed(1) + " us" : (ns / 1e3).toFixed(0) + " us";
    if (ns < 1e9) return ns < 1e8 ? (ns / 1e6).toFixed(2) + " ms" : (ns / 1e6).toFixed(1) + " ms";
    return (ns / 1e9).toFixed(2) + " s";
  }

  // --- header: what the trace is and how far to trust it -------------------------------------------
  var head = document.getElementById("head");
  head.appendChild(el("h1", "traceattrib report · " + V.title));
  head.appendChild(el("p", V.trust_line));
  head.appendChild(el("p", V.steps_line));
  V.capture.forEach(function (c) { head.appendChild(el("p", c)); });
  V.warnings.forEach(function (w) { head.appendChild(el("p", "warning: " + w, "warn")); });

  // --- what to fix first ---------------------------------------------------------------------------
  var fix = document.getElementById("fix");
  if (V.findings.length || V.ceiling) {
    fix.appendChild(el("h2", "What to fix first (" + V.kind + " steps; bound = the most the step could speed up)"));
    var ol = el("ol", null, "fix");
    V.findings.forEach(function (f) {
      var li = el("li");
      li.appendChild(el("span", f.what + ": "));
      li.appendChild(el("span", "≤ " + f.bound, "bound"));
      li.appendChild(el("span", " · " + f.evidence));
      ol.appendChild(li);
    });
    fix.appendChild(ol);
    if (V.ceiling) {
      fix.appendChild(el("p", "Ceiling on all fixes together: the " + V.ceiling.what + ", ≤ " + V.ceiling.bound +
        " · " + V.ceiling.evidence));
    }
  }

  // --- the step strip: every step, stacked exposed buckets + overlap + idle -----------------------------
  var S = V.steps, D = V.detail;
  var shownAt = {};
  D.steps.forEach(function (d, k) { shownAt[d.row] = k; });
  var strip = null, stepChart = null;
  if (S.n) {
    var labels = [], i;
    for (i = 0; i < S.n; i++) labels.push("r" + S.rank[i] + " #" + S.index[i] + " " + S.kind[i]);
    var parts = V.buckets.map(function (b) { return {name: b, values: S.exposed_ns[b]}; });
    parts.push({name: "overlapped", values: S.overlap_ns});
    if (S.idle_causes_ns) {
      V.causes.forEach(function (c) { parts.push({name: c, label: "idle: " + c, values: S.idle_causes_ns[c]}); });
    } else {
      parts.push({name: "idle", values: S.idle_ns});
    }
    var areas = [], start = 0;
    for (i = 1; i <= S.n; i++) {
      if (i === S.n || S.kind[i] !== S.kind[start] || S.rank[i] !== S.rank[start]) {
        areas.push([{xAxis: start, name: S.kind[start], itemStyle: {color: KIND_TINT[S.kind[start]] || KIND_TINT.unknown}},
                    {xAxis: i - 1}]);
        start = i;
      }
    }
    var pins = [];
    for (i = 0; i < S.n; i++) {
      if (S.outlier[i]) pins.push({coord: [i, S.span_ns[i] / 1e6], value: "outlier"});
    }
    var series = parts.map(function (p, j) {
      var s = {name: p.label || p.name, type: "bar", stack: "span", barCategoryGap: "10%",
        itemStyle: {color: COLORS[p.name] || "#999"}, emphasis: {focus: "series"},
        data: p.values.map(function (v) { return v / 1e6; })};
      if (j === 0) {
        s.markArea = {silent: true, label: {show: true, position: "insideTop", color: "#5b6576"}, data: areas};
        s.markPoint = {symbol: "pin", symbolSize: 26, label: {fontSize: 8}, itemStyle: {color: "#c0392b"}, data: pins};
      }
      return s;
    });
    strip = echarts.init(document.getElementById("strip"));
    strip.setOption({
      animation: false,
      legend: {type: "scroll", top: 0},
      grid: {left: 56, right: 16, top: 36, bottom: 64},
      tooltip: {trigger: "axis", axisPointer: {type: "shadow"}, confine: true, formatter: function (ps) {
        var i = ps[0].dataIndex;
        var lines = ["<b>" + esc("rank " + S.rank[i] + " step " + S.index[i] + " · " + S.name[i]) + "</b>",
          esc(S.kind[i] + (S.warmup[i] ? ", warm-up" : "") + (S.outlier[i] ? ", outlier" : "") + " · span " + dur(S.span_ns[i]))];
        ps.forEach(function (p) { if (p.value > 0) lines.push(esc(p.seriesName) + ": " + p.value.toFixed(3) + " ms"); });
        lines.push(S.shown[i] ? "click: this step's timeline (" + esc(S.shown[i]) + ")" : "no op-level detail kept");
        return lines.join("<br>");
      }},
      xAxis: {type: "category", data: labels, axisLabel: {show: S.n <= 60, rotate: 45, fontSize: 9}},
      yAxis: {type: "value", name: "ms", nameGap: 8},
      dataZoom: S.n > 200 ? [{type: "inside"}, {type: "slider", height: 18, bottom: 8}] : [],
      series: series
    });
    strip.on("click", function (p) { showStep(p.dataIndex); });
    document.getElementById("strip-hint").textContent =
      S.n + " step(s): exposed time per bucket, time where buckets overlap, and idle time" +
      (S.idle_causes_ns ? " by cause" : "") + " (ms); tinted by kind, outliers pinned. Op-level detail is kept for " +
      D.steps.length + " step(s): the first, the median and the slowest of each kind per rank" +
      (D.dropped_steps ? " (" + D.dropped_steps + " more dropped to keep the file small)" : "") +
      "; click one of them.";
  } else {
    document.getElementById("strip-section").appendChild(el("p", "no steps"));
  }

  // --- one step's timeline: its ops per stream, coloured by bucket -------------------------------------
  function showStep(row) {
    var k = shownAt[row];
    var title = document.getElementById("step-title"), hint = document.getElementById("step-hint");
    title.textContent = "Step: rank " + S.rank[row] + ", step " + S.index[row] + " · " + S.name[row] + " · " + S.kind[row] +
      " · span " + dur(S.span_ns[row]);
    window.__ta.shownStep = row;
    if (k === undefined) {
      hint.textContent = "No op-level detail for this step: kept for the first, the median and the slowest step of " +
        "each kind per rank.";
      if (stepChart) stepChart.clear();
      return;
    }
    var d = D.steps[k], data = [], gaps = [], j, G = D.gaps;
    for (j = 0; j < D.op_step.length; j++) {
      if (D.op_step[j] === k) data.push([D.lane[j] + 1, D.t0[j] / 1e3, D.t1[j] / 1e3, D.bucket[j], D.name[j]]);
    }
    for (j = 0; j < G.step.length; j++) {
      if (G.step[j] === k) gaps.push([0, G.t0[j] / 1e3, G.t1[j] / 1e3, G.cause[j], j]);
    }
    hint.textContent = data.length + " GPU ops on " + d.lanes.length + " stream(s), time in us from the step's start; " +
      "scroll or drag the slider to zoom. " + (gaps.length ? gaps.length + " idle gap(s) on the top row, coloured by " +
      "their largest cause as in the strip's legend: hover one for its causes and what the CPU was doing, click it to keep that below."
      : "Gaps between ops are idle time.");
    document.getElementById("gap").textContent = "";
    if (!stepChart) {
      stepChart = echarts.init(document.getElementById("step"));
      stepChart.on("click", function (p) {
        if (p.seriesName === "idle gaps") document.getElementById("gap").textContent = gapText(p.value[4]).join(" · ");
      });
    }
    stepChart.clear();
    function bars(fill) {
      return function (params, api) {
        var lane = api.value(0), a = api.coord([api.value(1), lane]), b = api.coord([api.value(2), lane]);
        var h = api.size([0, 1])[1] * 0.6;
        var rect = echarts.graphic.clipRectByRect({x: a[0], y: a[1] - h / 2, width: Math.max(b[0] - a[0], 1), height: h},
          {x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height});
        return rect && {type: "rect", shape: rect, style: {fill: fill(api.value(3))}};
      };
    }
    stepChart.setOption({
      animation: false,
      grid: {left: 130, right: 16, top: 16, bottom: 56},
      tooltip: {confine: true, formatter: function (p) {
        var v = p.value;
        if (p.seriesName === "idle gaps") {
          var t = gapText(v[4]);
          return "<b>" + esc(t[0]) + "</b><br>" + t.slice(1).map(esc).join("<br>");
        }
        return "<b>" + esc(D.names[v[4]]) + "</b><br>" + esc(V.buckets[v[3]]) + " · " + dur((v[2] - v[1]) * 1e3) +
          " · at " + v[1].toFixed(1) + " us";
      }},
      xAxis: {type: "value", name: "us", min: 0, max: S.span_ns[row] / 1e3, nameGap: 6},
      yAxis: {type: "category", data: ["GPU idle"].concat(d.lanes), inverse: true},
      dataZoom: [{type: "inside", filterMode: "weakFilter"}, {type: "slider", height: 18, bottom: 8, filterMode: "weakFilter"}],
      series: [{name: "ops", type: "custom", encode: {x: [1, 2], y: 0}, data: data,
                renderItem: bars(function (b) { return COLORS[V.buckets[b]] || "#999"; })},
               {name: "idle gaps", type: "custom", encode: {x: [1, 2], y: 0}, data: gaps,
                renderItem: bars(function (c) { return COLORS[V.causes[c]] || "#999"; })}]
    });
  }

  // one gap in words: its length and largest cause, then its time per cause and what the CPU did
  function gapText(j) {
    var G = D.gaps, c = V.causes[G.cause[j]], out = [];
    out.push("idle " + dur(G.t1[j] - G.t0[j]) + " at " + (G.t0[j] / 1e3).toFixed(1) + " us · largest cause: " +
      V.idle_words[c] + (G.queued[j] ? " (the next op was already queued)" : ""));
    V.causes.forEach(function (x) { if (G.ns[x][j] > 0) out.push(V.idle_words[x] + ": " + dur(G.ns[x][j])); });
    out.push(G.what[j] >= 0 ? "CPU: " + G.whats[G.what[j]] + (G.source[j] && G.source[j] !== "none" ?
      " (from " + G.source[j] + ")" : "") : "CPU: nothing named");
    return out;
  }

  // --- per kind: the bucket table and what goes with it -----------------------------------------------
  var kinds = document.getElementById("kinds");
  V.kinds.forEach(function (kt) {
    kinds.appendChild(el("h2", kt.title));
    var t = el("table", null, "buckets"), tr = el("tr");
    kt.header.forEach(function (h) { tr.appendChild(el("th", h)); });
    t.appendChild(tr);
    kt.rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c) { row.appendChild(el("td", c)); });
      t.appendChild(row);
    });
    t.setAttribute("data-kind", kt.kind);
    kinds.appendChild(t);
    var ul = el("ul", null, "lines");
    kt.lines.forEach(function (l) { ul.appendChild(el("li", l)); });
    kinds.appendChild(ul);
    if (kt.inside) inside(kt.kind, kt.inside);
  });

  function table(spec, cls, kind) {
    var t = el("table", null, cls), tr = el("tr");
    spec.header.forEach(function (h) { tr.appendChild(el("th", h)); });
    t.appendChild(tr);
    spec.rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c) { row.appendChild(el("td", c)); });
      t.appendChild(row);
    });
    t.setAttribute("data-kind", kind);
    return t;
  }

  // inside the step: modules summed over the layers, then every layer with its buckets
  function inside(kind, ins) {
    kinds.appendChild(el("h3", ins.title));
    kinds.appendChild(table(ins.modules, "modules", kind));
    kinds.appendChild(table(ins.layers, "layers", kind));
    var ul = el("ul", null, "lines");
    ins.lines.forEach(function (l) { ul.appendChild(el("li", l)); });
    kinds.appendChild(ul);
  }

  // --- communication across ranks ---------------------------------------------------------------------
  var comm = document.getElementById("comm");
  if (V.comm.length) comm.appendChild(el("h2", "Communication across ranks"));
  V.comm.forEach(function (c) { comm.appendChild(el("pre", c.lines.join("\n"))); });

  // --- notes ------------------------------------------------------------------------------------------
  var notes = document.getElementById("notes");
  if (V.notes.length) {
    notes.appendChild(el("h2", "Notes"));
    var nl = el("ul", null, "notes");
    V.notes.forEach(function (n) { nl.appendChild(el("li", n)); });
    notes.appendChild(nl);
  }
  document.getElementById("foot").textContent = "traceattrib " + V.version +
    " · one self-contained file: every number is in the data of this page (summary = the JSON report's) · " +
    "charts: Apache ECharts (Apache License 2.0)";

  window.__ta = {view: V, strip: strip, step: function () { return stepChart; }, shownStep: null, showStep: showStep};
  // open the headline kind's median step (else the first step kept in detail)
  var first = null;
  D.steps.forEach(function (d) {
    var r = d.row;
    if (first === null && S.kind[r] === V.kind && S.shown[r] === "median") first = r;
  });
  if (first === null && D.steps.length) first = D.steps[0].row;
  if (first !== null) showStep(first);
  window.addEventListener("resize", function () { if (strip) strip.resize(); if (stepChart) stepChart.resize(); });
})();
