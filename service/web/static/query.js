// The /query page: YASGUI (vendored @zazuko/yasgui 4.6.x) on this service's /sparql only.
// Everything it needs comes from the page's JSON block #query-config (endpoint, prefixes
// URL, examples), so the server decides and the page never names another host.
(function () {
  "use strict";
  var cfgEl = document.getElementById("query-config");
  var root = document.getElementById("yasgui");
  if (!cfgEl || !root || typeof Yasgui === "undefined") return;
  var cfg = JSON.parse(cfgEl.textContent);
  var endpoint = new URL(cfg.endpoint, window.location.href).href;

  // Offline: the class/property autocompleters ask lov.linkeddata.es while one types, so
  // only the prefix and variable completers stay on. Yasgui merges its config with lodash
  // `merge`, which merges arrays index by index, so the list is replaced in the defaults
  // (the same array object Yasgui.defaults.yasqe holds) rather than passed in the config.
  Yasgui.Yasqe.defaults.autocompleters = ["prefixes", "variables"];
  // The prefix completer fetches `prefixCcApi` when set (null: the list bundled in YASGUI);
  // ours is a local JSON {prefix: namespace} made from the ontology's prefixes.
  Yasgui.Yasqe.defaults.prefixCcApi = cfg.prefixesUrl;

  var yasgui = new Yasgui(root, {
    requestConfig: { endpoint: endpoint, method: "POST" },
    // the endpoint field's suggestions (defaults: DBpedia and Wikidata)
    endpointCatalogueOptions: {
      getData: function () { return [{ endpoint: endpoint }]; },
      keys: [],
    },
    copyEndpointOnNewTab: true,
    corsProxy: undefined, // no ASK probe of other endpoints
    persistenceId: cfg.persistenceId, // per-origin localStorage key; null: nothing kept
    autofocus: false, // keep the keyboard focus order of the page
    yasqe: { value: cfg.query, resizeable: true, editorHeight: "18rem" },
  });

  // A stored tab may hold another endpoint typed by hand earlier: show ours on load.
  var tab = yasgui.getTab();
  if (tab && tab.getEndpoint() !== endpoint) tab.setEndpoint(endpoint);

  function loadExample(name, run) {
    var ex = (cfg.examples || []).find(function (e) { return e.name === name; });
    if (!ex) return;
    var t = yasgui.getTab();
    t.setQuery(ex.sparql);
    var url = new URL(window.location.href);
    url.searchParams.set("example", name);
    url.hash = "";
    window.history.replaceState(null, "", url.toString());
    if (run) t.query().catch(function () { /* shown by YASR */ });
  }

  document.querySelectorAll("[data-example]").forEach(function (btn) {
    btn.addEventListener("click", function (ev) {
      ev.preventDefault();
      loadExample(btn.getAttribute("data-example"), true);
    });
  });
  // ?query=… (a view's "open in the query editor" link) wins over the stored tab
  if (cfg.forceQuery) yasgui.getTab().setQuery(cfg.query);
  var initial = new URL(window.location.href).searchParams.get("example");
  if (initial) loadExample(initial, cfg.runInitial === true);
  window.reprokgYasgui = yasgui; // for the browser tests
})();
