"""The web views, one router per family; :data:`ROUTERS` in navigation order."""

from __future__ import annotations

from reprokg.service.web.routes import (
    analyses,
    comparisons,
    evidence,
    home,
    leaderboards,
    paper,
    papers,
    people,
    query,
    runs,
    sources,
    validate,
)

ROUTERS = [
    home.router,
    papers.router,
    evidence.router,
    sources.router,
    paper.router,
    people.router,
    runs.router,
    leaderboards.router,
    comparisons.router,
    analyses.router,
    query.router,
    validate.router,
]
