"""The web interface: server-rendered views over the graph, for people who do not write
SPARQL.

``install.install(app)`` adds to the service: the views (``routes/``: Jinja2 templates, small
progressive scripts), their SPARQL (``queries/*.rq``, named-query format), our static
files and the vendored npm bundles (``static/vendor/``: YASGUI, Swagger UI, with their
licenses, ``VERSIONS.json`` and ``SHA256SUMS``; ``refresh_vendor.sh`` renews them), the
offline API docs at ``/docs``, and an HTML page for errors a browser asks for. Every view
keeps its state in its URL and answers ``?format=csv|json`` with the rows it shows.
"""
