// Follows the builds in progress on a bot's page: each build's log as the
// worker writes it (for the bot's owner), and a reload when the build is
// over. Without scripts the page refreshes itself instead.
(function () {
  "use strict";
  if (!window.EventSource) return;
  // A reload must not cancel a page the visitor is already leaving for.
  var leaving = false;
  window.addEventListener("beforeunload", function () { leaving = true; });
  // The upload's redirect adds ?uploaded=N for a banner about the new
  // build; once the build is over the banner has nothing to follow.
  function reloadWithoutUploaded() {
    var url = new URL(location.href);
    if (!url.searchParams.has("uploaded")) {
      location.reload();
      return;
    }
    url.searchParams.delete("uploaded");
    location.replace(url.toString());
  }
  document.querySelectorAll(".build-live[data-events]").forEach(function (el) {
    var pre = el.querySelector(".build-log");
    var status = el.parentElement.querySelector("span[class^='build-']");
    var es = new EventSource(el.dataset.events);
    function setStatus(e) {
      if (status) status.textContent = JSON.parse(e.data).status;
    }
    es.addEventListener("status", setStatus);
    es.addEventListener("restart", function (e) {
      setStatus(e);
      if (pre) pre.textContent = "";
    });
    es.addEventListener("log", function (e) {
      if (pre) pre.textContent += JSON.parse(e.data).text;
    });
    es.addEventListener("end", function (e) {
      setStatus(e);
      es.close();
      if (!leaving) reloadWithoutUploaded();
    });
  });
})();
