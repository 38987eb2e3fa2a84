"""Each registered study module checked against the plugin contract by mypy.

:meth:`PublishedStudy.impl` imports a study's module by name, which no type checker
follows; here each module is assigned to ``StudyModule[ItsInputs, ItsResult]``, so
``.ci/mypy`` fails when a module's ``read``, ``analyze``, ``format_table``, ``values``,
``charts`` or ``is_empty`` stops agreeing with the others on the inputs and the result.
Nothing runs at import: the checks are for the type checker only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from reprokg.studies import (
        artifact_evaluation,
        artifact_permanence,
        audits,
        gk2018,
        grsi,
        pwc_checklist_2019,
        siggraph2020,
        trisovic2022,
    )
    from reprokg.studies.plugin import StudyModule

    _SIGGRAPH2020: StudyModule[dict[str, siggraph2020.Papers], siggraph2020.SiggraphResult] = (
        siggraph2020
    )
    _GK2018: StudyModule[pd.DataFrame, gk2018.Gk2018Result] = gk2018
    _PWC: StudyModule[pd.DataFrame, pwc_checklist_2019.PwcChecklistResult] = pwc_checklist_2019
    _AUDITS: StudyModule[audits.AuditInputs, audits.AuditsResult] = audits
    _GRSI: StudyModule[grsi.Reviews, grsi.GrsiResult] = grsi
    _TRISOVIC: StudyModule[trisovic2022.Inputs, trisovic2022.TrisovicResult] = trisovic2022
    _AE: StudyModule[artifact_evaluation.Inputs, artifact_evaluation.ArtifactEvaluationResult] = (
        artifact_evaluation
    )
    _PERMANENCE: StudyModule[
        artifact_permanence.Inputs, artifact_permanence.ArtifactPermanenceResult
    ] = artifact_permanence
