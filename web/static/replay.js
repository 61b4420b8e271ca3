// Lets the arrow keys step through replay rounds; the links work without it.
document.addEventListener("keydown", function (e) {
  var rel = e.key === "ArrowLeft" ? "prev" : e.key === "ArrowRight" ? "next" : null;
  if (!rel || e.target.tagName === "INPUT") return;
  var a = document.querySelector('a[rel="' + rel + '"]');
  if (a) location.href = a.href;
});
