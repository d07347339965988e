// Live progress for long work (a rebuild, a re-scan). The pages work without it: they
// show the progress as it was when loaded, with a link to refresh.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // The {done, total} of running work in a progress answer, or null once it has ended.
  function running(answer) {
    if (answer.scanning) return answer.scanning;
    return answer.state === "running" ? answer : null;
  }

  function show(box, work) {
    var bar = box.querySelector("progress");
    bar.max = Math.max(work.total, 1);
    bar.value = work.done;
    box.querySelector(".progress-text").textContent = work.done + " of " + work.total;
  }

  // Polls box's data-poll URL each second; when the work ends, reloads the page, or
  // calls ended() if given.
  function poll(box, ended) {
    var timer = setInterval(function () {
      fetch(box.getAttribute("data-poll"), { headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
        .then(function (answer) {
          var work = running(answer);
          if (work) return show(box, work);
          if (ended && ended()) return;
          clearInterval(timer);
          if (!ended) location.reload();
        })
        .catch(function () { clearInterval(timer); });
    }, 1000);
    return timer;
  }

  function progressBox(url, label) {
    var box = document.createElement("div");
    box.className = "progress";
    box.setAttribute("data-poll", url);
    box.setAttribute("role", "status");
    var name = document.createElement("span");
    name.textContent = label;
    var bar = document.createElement("progress");
    var text = document.createElement("span");
    text.className = "progress-text";
    text.textContent = "starting…";
    box.append(name, bar, text);
    return box;
  }

  document.querySelectorAll(".progress[data-poll]").forEach(function (box) { poll(box); });

  // A form whose work blocks until done (a re-scan) is sent in the background while its
  // progress is polled; then the page it answers with is opened.
  document.querySelectorAll("form[data-progress]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = form.querySelector("button");
      button.disabled = true;
      var box = progressBox(form.getAttribute("data-progress"), form.getAttribute("data-progress-label"));
      form.after(box);
      var sent = false;
      var timer = poll(box, function () { return !sent; });
      fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)) })
        .then(function (r) {
          sent = true;
          clearInterval(timer);
          if (r.ok && r.redirected) location.assign(r.url);
          else form.submit();  // let the browser show the answer, an error page included
        })
        .catch(function () { form.submit(); });
    });
  });
})();
