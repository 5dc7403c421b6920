// The atlas grid's filter: every word must be found, each in the table's title (framework, GPU or
// CPU), a column's header (release, hardware) or a row's technique (its name and the claims it
// tests): "torch H100 empty_cache" keeps torch's H100 columns of the rows about empty_cache.
// Rows and columns with no cell left are hidden, table by table.
(function () { var box = document.getElementById("filter"); if (!box) return;
  function text(el) { return el ? el.textContent.toLowerCase() : ""; }
  box.oninput = function () { var q = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    [].forEach.call(document.querySelectorAll("section.fw"), function (sec) {
      var title = text(sec.querySelector("h2")), heads = [].slice.call(sec.querySelectorAll("th.col")).map(text);
      var rows = [].slice.call(sec.querySelectorAll("tr.row")), colShown = heads.map(function () { return !q.length; });
      var rowShown = rows.map(function (tr) { var name = text(tr.querySelector("th")), any = !q.length;
        heads.forEach(function (head, i) {
          var hit = q.every(function (w) { return title.indexOf(w) >= 0 || head.indexOf(w) >= 0 || name.indexOf(w) >= 0; });
          if (hit) { any = true; colShown[i] = true; } });
        return any; });
      rows.forEach(function (tr, r) { tr.style.display = rowShown[r] ? "" : "none"; });
      [].forEach.call(sec.querySelectorAll("tr"), function (tr) {
        heads.forEach(function (_, i) { var c = tr.children[i + 1]; if (c) c.style.display = colShown[i] ? "" : "none"; }); });
      sec.style.display = rowShown.some(function (s) { return s; }) ? "" : "none"; }); };
})();
