/* The hotspots page's trend chart: tickets per window of each ranked hotspot, drawn with Apache ECharts. */
(function () {
  "use strict";
  var box = document.getElementById("hotspot-trend");
  var data = document.getElementById("hotspot-data");
  if (!box || !data) return;
  if (typeof window.echarts === "undefined") {
    var notice = document.getElementById("chart-missing");  // the library did not load: say so, draw nothing
    if (notice.hidden) notice.textContent = notice.getAttribute("data-msg-unloaded");
    notice.hidden = false;
    box.hidden = true;
    return;
  }
  var body = JSON.parse(data.textContent);
  var days = body.windows.map(function (w) { return w.slice(0, 10); });
  var series = body.hotspots.slice(0, 8).map(function (h) {
    var counts = {};
    h.trend.forEach(function (point) { counts[point.window.slice(0, 10)] = point.count; });
    return {
      name: "#" + h.rank + " " + (h.place ? h.place + " · " : "") + h.description,
      type: "line",
      smooth: false,
      showSymbol: true,
      data: days.map(function (d) { return counts[d] || 0; })
    };
  });
  var chart = window.echarts.init(box, null, { renderer: "canvas" });
  chart.setOption({
    animation: false,
    tooltip: { trigger: "axis" },
    legend: { type: "scroll", top: 0 },
    grid: { left: 48, right: 24, top: 48, bottom: 40 },
    xAxis: { type: "category", name: box.getAttribute("data-label-window"), data: days },
    yAxis: { type: "value", name: box.getAttribute("data-label-count"), minInterval: 1 },
    series: series
  });
  box.setAttribute("data-drawn", "true");
  window.addEventListener("resize", function () { chart.resize(); });
})();
