// The view of get_forecast (MCP Apps, SEP-1865): JSON-RPC over postMessage with the host.
// It says hello (ui/initialize), then shows the tool's input and text result as they arrive.
(function () {
  "use strict";
  var nextId = 1;
  function send(message) { window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*"); }
  function text(result) {
    return (result.content || []).filter(function (b) { return b.type === "text"; })
      .map(function (b) { return b.text; }).join("\n");
  }
  window.addEventListener("message", function (event) {
    var data = event.data || {};
    if (data.id === 1 && data.result) {
      send({ method: "ui/notifications/initialized", params: {} });
    } else if (data.method === "ui/notifications/tool-input") {
      document.getElementById("place").textContent = "Forecast for " + (data.params.arguments || {}).location;
    } else if (data.method === "ui/notifications/tool-result") {
      document.getElementById("forecast").textContent = text(data.params);
    }
  });
  send({
    id: nextId++, method: "ui/initialize",
    params: { appInfo: { name: "weather-forecast", version: "1.0.0" }, appCapabilities: {}, protocolVersion: "2026-01-26" },
  });
})();
