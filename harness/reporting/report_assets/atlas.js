// The atlas grid's filter: a word matches a column's header (release, GPU, CPU), a framework or a
// row's technique; rows and columns that match none are hidden, table by table.
(function () { var box = document.getElementById("filter"); if (!box) return;
  function has(el, words) { var t = el.textContent.toLowerCase(); return words.some(function (w) { return t.indexOf(w) >= 0; }); }
  box.oninput = function () { var q = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    [].forEach.call(document.querySelectorAll("section.fw"), function (sec) {
      var heads = [].slice.call(sec.querySelectorAll("th.col")), named = q.length && has(sec.querySelector("h2"), q);
      var keep = heads.map(function (h) { return !q.length || named || has(h, q); });
      var anyCol = q.length && !named && keep.some(function (k) { return k; });
      var shown = 0;
      [].forEach.call(sec.querySelectorAll("tr"), function (tr) {
        var isRow = tr.classList.contains("row");
        var rowHit = !isRow || !q.length || named || anyCol || has(tr.querySelector("th"), q);
        tr.style.display = rowHit ? "" : "none"; if (isRow && rowHit) shown++;
        heads.forEach(function (h, i) { var c = tr.children[i + 1]; if (c) c.style.display = (!anyCol || keep[i]) ? "" : "none"; }); });
      sec.style.display = shown ? "" : "none"; }); };
})();
