// The replay viewer's player: play/pause, speed, step, scrubber, keyboard,
// and live rounds from the match's event stream. Rounds are fetched as HTML
// fragments and swapped in; the URL follows the round, so it can be shared.
// Without scripts the page's links step through the same rounds.
(function () {
  "use strict";
  // A reload must not cancel a page the visitor is already leaving for.
  var leaving = false;
  window.addEventListener("beforeunload", function () { leaving = true; });
  var reloadPage = function () { if (!leaving) location.reload(); };
  var root = document.getElementById("viewer");
  var wait = document.getElementById("live-wait");
  if (!root && wait && window.EventSource) {
    // No round yet: reload at the first one, or when the match ends.
    var first = new EventSource(wait.dataset.events);
    var reload = function () { first.close(); reloadPage(); };
    first.addEventListener("round", reload);
    first.addEventListener("end", reload);
    return;
  }
  if (!root || !window.fetch) return;
  var frame = root.querySelector("#frame");
  var controls = root.querySelector(".controls");
  var playBtn = root.querySelector(".play");
  var scrub = root.querySelector(".scrubber");
  var speed = root.querySelector(".speed");
  var stepName = root.querySelector(".step-name");
  var badge = root.querySelector(".live-badge");
  var cursor = root.querySelector(".score-chart .cursor");
  var chart = root.querySelector(".score-chart svg");
  var count = +root.dataset.count;
  var index = +root.dataset.index;
  var page = root.dataset.page;
  var frags = root.dataset.fragments;
  var cache = new Map();
  var want = index;
  var timer = null;
  var live = false;
  controls.hidden = false;

  function load(i) {
    var p = cache.get(i);
    if (!p) {
      p = fetch(frags + i, { credentials: "same-origin", headers: { Accept: "text/html" } })
        .then(function (r) {
          if (!r.ok) throw new Error("round " + i + ": " + r.status);
          return r.text();
        });
      p.catch(function () { cache.delete(i); });
      cache.set(i, p);
    }
    return p;
  }

  function clamp(i) { return Math.max(0, Math.min(count - 1, i)); }

  function show(i) {
    i = clamp(i);
    want = i;
    return load(i).then(function (html) {
      if (want !== i) return;
      frame.innerHTML = html;
      index = i;
      update();
    });
  }

  // link points a pager link at step i, or, where it would lead nowhere
  // (the first step's "Previous", the last one's "Next"), unlinks it.
  function link(rel, i, enabled) {
    var a = root.querySelector('a[rel="' + rel + '"]');
    if (!a) return;
    if (enabled) {
      a.href = page + "?round=" + i + "#viewer";
      a.classList.remove("disabled");
      a.removeAttribute("aria-disabled");
    } else {
      a.removeAttribute("href");
      a.classList.add("disabled");
      a.setAttribute("aria-disabled", "true");
    }
  }

  function update() {
    scrub.max = count - 1;
    scrub.value = index;
    // The stepper names the step as its title does, in the game's unit.
    var title = frame.querySelector(".frame-name");
    if (stepName && title) stepName.textContent = title.textContent;
    root.dataset.index = index;
    link("first", 0, index > 0);
    link("prev", clamp(index - 1), index > 0);
    link("next", clamp(index + 1), index < count - 1);
    link("last", count - 1, index < count - 1);
    history.replaceState(null, "", page + "?round=" + index + location.hash);
    if (cursor && chart) {
      var steps = +chart.dataset.steps, w = +chart.dataset.width, pad = 4;
      if (steps > 1 && index < steps) {
        var x = pad + Math.floor(index * (w - 2 * pad) / (steps - 1));
        cursor.setAttribute("x1", x);
        cursor.setAttribute("x2", x);
      }
    }
    // Fetch a few rounds ahead so playback never waits on the network.
    if (timer) for (var k = 1; k <= 8 && index + k < count; k++) load(index + k);
  }

  function rate() { return +speed.value; } // rounds per second

  function tick() {
    if (index >= count - 1) {
      if (live) { timer = setTimeout(tick, 250); return; }
      pause();
      return;
    }
    var started = Date.now();
    show(index + 1).then(function () {
      if (timer === null) return;
      timer = setTimeout(tick, Math.max(0, 1000 / rate() - (Date.now() - started)));
    }, pause);
  }

  function play() {
    if (timer !== null) return;
    playBtn.textContent = "Pause";
    playBtn.setAttribute("aria-pressed", "true");
    if (index >= count - 1 && !live) {
      // From the end (where a finished match opens), play from the
      // start: the first step is shown before the clock starts.
      timer = -1;
      show(0).then(function () {
        if (timer !== null) timer = setTimeout(tick, 1000 / rate());
      }, pause);
      return;
    }
    timer = setTimeout(tick, 0);
  }

  function pause() {
    clearTimeout(timer);
    timer = null;
    playBtn.textContent = "Play";
    playBtn.setAttribute("aria-pressed", "false");
  }

  function toggle() { if (timer === null) play(); else pause(); }

  function step(d) { pause(); show(index + d); }

  playBtn.addEventListener("click", toggle);
  root.querySelector(".step-back").addEventListener("click", function () { step(-1); });
  root.querySelector(".step-fwd").addEventListener("click", function () { step(1); });
  scrub.addEventListener("input", function () { pause(); show(+scrub.value); });

  document.addEventListener("keydown", function (e) {
    var t = e.target.tagName;
    if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) return;
    if (t === "BUTTON" && (e.key === " " || e.key === "Enter")) return; // the button's own click
    switch (e.key) {
      case "ArrowLeft": step(-1); break;
      case "ArrowRight": step(1); break;
      case "Home": step(-index); break;
      case "End": step(count - 1 - index); break;
      case " ": toggle(); break;
      default: return;
    }
    e.preventDefault();
  });

  // Live: new rounds come from the match's server-sent events.
  var events = root.dataset.events;
  if (events && root.dataset.live === "true" && window.EventSource) {
    var src = new EventSource(events);
    live = true;
    badge.hidden = false;
    // The score chart was drawn when the page loaded and would contradict
    // the rounds that follow; the stored replay brings it back at the end.
    var figure = root.querySelector(".score-chart");
    if (figure) figure.hidden = true;
    src.addEventListener("round", function (e) {
      var d = JSON.parse(e.data);
      var following = index >= count - 1;
      count = Math.max(count, d.count);
      if (d.html) cache.set(d.index, Promise.resolve(d.html));
      update();
      if (following && timer === null) show(d.index);
    });
    src.addEventListener("end", function () {
      src.close();
      live = false;
      badge.hidden = true;
      // The stored replay replaces the live rounds: reload at the round
      // shown (a change of the hash alone would not reload).
      if (leaving) return;
      history.replaceState(null, "", page + "?round=" + index + "#viewer");
      reloadPage();
    });
  }
})();
