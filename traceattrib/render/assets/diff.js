// Lays out the traceattrib diff page from the JSON in #data (made by traceattrib/render/html_diff.py).
// Text from the traces is only ever set with textContent, or escaped before a tooltip shows it.
(function () {
  "use strict";
  var V = JSON.parse(document.getElementById("data").textContent);
  var MAX_SHOWN = 3;  // the chart's axis ends at +300%
  var TONE = {lower: "#2e7d32", higher: "#c62828", unchanged: "#5b6576", too_few: "#9aa3b2"};

  // el, esc: dom.js
  function pct(x) { return (x >= 0 ? "+" : "") + (100 * x).toFixed(1) + "%"; }

  var head = document.getElementById("head");
  head.appendChild(el("h1", "traceattrib diff"));
  head.appendChild(el("p", "before  " + V.before));
  head.appendChild(el("p", "after   " + V.after));

  var checks = document.getElementById("checks");
  V.checks.forEach(function (c) { checks.appendChild(el("p", c, "warn check")); });

  var kinds = document.getElementById("kinds"), charts = {};
  if (!V.kinds.length) kinds.appendChild(el("p", "no step kind on both sides to compare"));
  V.kinds.forEach(function (k) {
    var h = el("h2", k.headline, "headline");
    h.style.color = TONE[k.verdict] || "";
    h.setAttribute("data-kind", k.kind);
    kinds.appendChild(h);
    var ul = el("ul", null, "lines");
    k.lines.forEach(function (l) { ul.appendChild(el("li", l)); });
    kinds.appendChild(ul);
    // the chart of every change with its interval first (the overview), then the tables (the detail)
    var points = [];
    k.tables.forEach(function (t) {
      t.rows.forEach(function (r) {
        if (r.point !== null && r.low !== null && t.id !== "span") {
          points.push({label: (t.id === "buckets" ? "" : t.id + ": ") + r.name, row: r});
        }
      });
    });
    if (points.length) chart(k, points);
    k.tables.forEach(function (t) {
      kinds.appendChild(el("h3", k.kind + ": " + t.title));
      var hasTime = t.rows.some(function (r) { return r.time_before !== undefined; });
      var header = ["", "before", "after", "change", "95% CI", "verdict"];
      if (hasTime) header = ["", "time before", "time after", "change", "exposed before", "exposed after", "change",
        "95% CI", "verdict"];
      var tab = el("table", null, "diff " + t.id), tr = el("tr");
      tab.setAttribute("data-kind", k.kind);
      header.forEach(function (x) { tr.appendChild(el("th", x)); });
      tab.appendChild(tr);
      t.rows.forEach(function (r) {
        var row = el("tr"), cells = [r.name];
        if (hasTime) cells = cells.concat([r.time_before || "", r.time_after || "", r.time_change || ""]);
        cells = cells.concat([r.before, r.after, r.change, r.ci, r.verdict_text]);
        cells.forEach(function (c) { row.appendChild(el("td", c)); });
        row.lastChild.style.color = TONE[r.verdict] || "";
        row.setAttribute("data-verdict", r.verdict);
        tab.appendChild(row);
      });
      kinds.appendChild(tab);
    });
  });

  // one kind's changes, each a point with its 95% interval; the axis spans -100% to at most +300%
  // (a part that was near zero before can grow by thousands of percent: its interval is cut at the edge)
  function chart(k, points) {
    var hi = Math.min(MAX_SHOWN, Math.max(0.1, Math.max.apply(null, points.map(function (p) { return p.row.high; }))));
    var lo = Math.max(-1, Math.min(-0.1, Math.min.apply(null, points.map(function (p) { return p.row.low; }))));
    var cut = points.some(function (p) { return p.row.high > MAX_SHOWN; });
    kinds.appendChild(el("p", k.kind + ": each change with its 95% interval (% of before); an interval " +
      "that holds 0 is no change beyond noise" + (cut ? "; intervals beyond +" + (100 * MAX_SHOWN) +
      "% are cut at the edge" : "") + ". Hover a point for its numbers; the tables below hold them all.", "hint"));
    var div = el("div", null, "chart");
    div.id = "chart-" + k.kind;
    div.style.height = Math.max(160, 40 + 22 * points.length) + "px";
    kinds.appendChild(div);
    var c = echarts.init(div);
    c.setOption({
      animation: false,
      grid: {left: 180, right: 24, top: 12, bottom: 36},
      tooltip: {confine: true, formatter: function (p) {
        var r = points[p.dataIndex].row;
        return "<b>" + esc(points[p.dataIndex].label) + "</b><br>" + esc(r.before + " → " + r.after + " ms · " +
          r.change) + "<br>" + esc("95% CI " + r.ci + " · " + r.verdict_text);
      }},
      xAxis: {type: "value", name: "change", min: lo, max: hi, axisLabel: {formatter: function (x) { return pct(x); }}},
      yAxis: {type: "category", inverse: true, data: points.map(function (p) { return p.label; })},
      series: [
        {type: "custom", silent: true, clip: true, data: points.map(function (p, i) { return [i, p.row.low, p.row.high]; }),
         renderItem: function (params, api) {
           var a = api.coord([api.value(1), api.value(0)]), b = api.coord([api.value(2), api.value(0)]);
           return {type: "line", shape: {x1: a[0], y1: a[1], x2: b[0], y2: b[1]}, style: {stroke: "#5b6576", lineWidth: 2}};
         }},
        {type: "scatter", symbolSize: 9, clip: true, data: points.map(function (p, i) {
          return {value: [p.row.point, i], itemStyle: {color: TONE[p.row.verdict] || "#333"}};
        }), markLine: {silent: true, symbol: "none", lineStyle: {color: "#9aa3b2", type: "dashed"}, data: [{xAxis: 0}]}}
      ]
    });
    charts[k.kind] = {chart: c, points: points};
  }

  var gate = document.getElementById("gate");
  V.gate.forEach(function (g, i) {
    gate.appendChild(el("p", g, i === V.gate.length - 1 ? (V.tripped ? "gate tripped" : "gate") : "gate"));
  });
  document.getElementById("foot").textContent = V.method + " · traceattrib " + V.version +
    " · one self-contained file: the diff's JSON is in the data of this page · charts: Apache ECharts (Apache License 2.0)";
  window.__ta = {view: V, charts: charts};
  window.addEventListener("resize", function () {
    Object.keys(charts).forEach(function (k) { charts[k].chart.resize(); });
  });
})();
