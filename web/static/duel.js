// Follows a running duel on its page: after each game counted the result
// and the games are drawn anew from the duel's event stream, and the
// stream closes with the verdict. Without scripts the page refreshes itself
// instead.
(function () {
  "use strict";
  if (!window.EventSource) return;
  var el = document.getElementById("duel-live");
  if (!el || !el.dataset.events) return;
  var es = new EventSource(el.dataset.events);
  function draw(e) {
    el.innerHTML = JSON.parse(e.data).html;
  }
  es.addEventListener("update", draw);
  es.addEventListener("end", function (e) {
    draw(e);
    es.close();
  });
})();
