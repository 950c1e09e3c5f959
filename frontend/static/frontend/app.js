/* DocGate portal: uploads with per-file progress, live job rows, finding focus, review shortcuts. No framework. */
(function () {
  "use strict";
  var $ = function (sel, root) { return (root || document).querySelector(sel); };
  var $$ = function (sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); };
  var csrf = function () { var el = $("input[name=csrfmiddlewaretoken]"); return el ? el.value : ""; };

  function autosubmit() {
    $$("select[data-autosubmit]").forEach(function (sel) {
      sel.addEventListener("change", function () { sel.form.submit(); });
    });
  }

  /* ---- uploads: one multipart POST per file, progress from XMLHttpRequest.upload ---- */
  function uploads() {
    var zone = $("#dropzone"), input = $("#file-input"), list = $("#upload-list");
    if (!zone || !input || !list) return;
    var send = function (file) {
      var li = document.createElement("li");
      li.className = "upload";
      var name = document.createElement("span"); name.className = "name"; name.textContent = file.name;
      var bar = document.createElement("progress"); bar.max = 100; bar.value = 0;
      var status = document.createElement("span"); status.className = "status"; status.setAttribute("data-testid", "upload-status");
      li.appendChild(name); li.appendChild(bar); li.appendChild(status); list.appendChild(li);
      var body = new FormData(); body.append("file", file, file.name);
      var xhr = new XMLHttpRequest();
      xhr.open("POST", zone.getAttribute("data-upload-url"));
      xhr.setRequestHeader("X-CSRFToken", csrf());
      xhr.upload.onprogress = function (e) { if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total); };
      xhr.onload = function () {
        var data = null;
        try { data = JSON.parse(xhr.responseText); } catch (err) { data = null; }
        bar.value = 100;
        if (xhr.status < 300 && data && data.url) {
          li.classList.add("ok");
          status.textContent = data.duplicate ? list.getAttribute("data-msg-dup") : list.getAttribute("data-msg-done");
          var a = document.createElement("a"); a.href = data.url; a.textContent = list.getAttribute("data-msg-open");
          a.setAttribute("data-testid", "upload-result-link");
          li.appendChild(a);
        } else {
          li.classList.add("failed");
          status.textContent = (data && data.error) ? data.error.message : list.getAttribute("data-msg-fail") + " (" + xhr.status + ")";
        }
      };
      xhr.onerror = function () { li.classList.add("failed"); status.textContent = list.getAttribute("data-msg-fail"); };
      xhr.send(body);
    };
    var sendAll = function (files) { Array.prototype.forEach.call(files, send); };
    input.addEventListener("change", function () { sendAll(input.files); input.value = ""; });
    zone.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); input.click(); } });
    ["dragenter", "dragover"].forEach(function (t) {
      zone.addEventListener(t, function (e) { e.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (t) {
      zone.addEventListener(t, function (e) { e.preventDefault(); zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (e) { if (e.dataTransfer) sendAll(e.dataTransfer.files); });
  }

  /* ---- live job list: re-fetch the rows while any job is unfinished ---- */
  function liveJobs() {
    var table = $("#jobs-table");
    if (!table) return;
    var tick = function () {
      var rows = $("#jobs-rows");
      if (!rows || !rows.getAttribute("data-live")) return;
      fetch(table.getAttribute("data-rows-url"), { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) { rows.outerHTML = html; })
        .catch(function () { /* keep the old rows; try again */ })
        .then(function () { setTimeout(tick, 2000); });
    };
    setTimeout(tick, 2000);
  }

  function liveResult() {
    if ($("[data-reload-while-running]")) setTimeout(function () { window.location.reload(); }, 2000);
  }

  /* ---- findings: clicking a row lights its marks, clicking a mark shows its row ---- */
  var current = -1;
  function focusFinding(id) {
    $$("mark.active").forEach(function (m) { m.classList.remove("active"); });
    $$("[data-finding-row].active").forEach(function (r) { r.classList.remove("active"); });
    $$("#doctext mark").forEach(function (m) {
      if ((" " + m.getAttribute("data-finding") + " ").indexOf(" " + id + " ") >= 0) m.classList.add("active");
    });
    var first = $("#doctext mark.active"); if (first) first.scrollIntoView({ block: "center", behavior: "smooth" });
    var row = $("[data-finding-row='" + id + "']");
    if (row) { row.classList.add("active"); row.scrollIntoView({ block: "nearest" }); }
  }
  function findings() {
    // A link from elsewhere (the key-term grid) names a finding in the address: light it on arrival.
    var linked = /^#finding-(.+)$/.exec(window.location.hash);
    if (linked) focusFinding(decodeURIComponent(linked[1]));
    $$("a.finding-link").forEach(function (a) {
      a.addEventListener("click", function (e) { e.preventDefault(); focusFinding(a.getAttribute("data-finding-ref")); });
    });
    $$("#doctext mark").forEach(function (m) {
      m.addEventListener("click", function () {
        var id = m.getAttribute("data-finding").split(" ")[0];
        var row = $("[data-finding-row='" + id + "']");
        if (row) { row.scrollIntoView({ block: "center", behavior: "smooth" }); focusFinding(id); }
      });
    });
  }

  /* ---- review shortcuts: j/k move, a approve, r reject, c correct, f finalize, g claim ---- */
  function shortcuts() {
    if (!$("[data-review-page]")) return;
    var rows = $$("[data-finding-row]");
    var select = function (i) {
      if (!rows.length) return;
      current = Math.max(0, Math.min(rows.length - 1, i));
      focusFinding(rows[current].getAttribute("data-finding-row"));
    };
    var inRow = function (sel) { return current >= 0 ? $(sel, rows[current]) : null; };
    document.addEventListener("keydown", function (e) {
      var t = e.target;
      if (e.ctrlKey || e.metaKey || e.altKey || (t && /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      var el = null;
      switch (e.key) {
        case "j": select(current + 1); break;
        case "k": select(current - 1); break;
        case "a": el = inRow("[data-action=approve]"); if (el) el.click(); break;
        case "r": el = inRow("[data-action=reject]"); if (el) el.click(); break;
        case "c": el = inRow("details.correct"); if (el) { el.open = true; var f = $("input[name=label]", el); if (f) { e.preventDefault(); f.focus(); f.select(); } } break;
        case "f": el = $("#finalize-form"); if (el) el.submit(); break;
        case "g": el = $("[data-key=claim]"); if (el) el.click(); break;
        default: return;
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    autosubmit(); uploads(); liveJobs(); liveResult(); findings(); shortcuts();
  });
})();
