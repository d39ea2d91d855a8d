// scorekit view: the viewer's only script (served from the package; the page's Content-Security-Policy
// allows no other). A page that shows a running run polls its progress and reloads when it changes.
(function () {
  "use strict";
  var body = document.body;
  var url = body.getAttribute("data-live-url");
  var state = body.getAttribute("data-live-state");
  if (!url) {
    return;
  }
  var every = 2000;
  function running(text) {
    try {
      var found = JSON.parse(text);
      return Object.keys(found).some(function (id) { return found[id].status === "running"; });
    } catch (e) {
      return false;
    }
  }
  function poll() {
    fetch(url, { cache: "no-store", credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : state; })
      .then(function (text) {
        if (text !== state) {
          window.location.reload();
          return;
        }
        if (running(text)) {
          window.setTimeout(poll, every);
        }
      })
      .catch(function () { window.setTimeout(poll, every * 5); });
  }
  window.setTimeout(poll, every);
})();
