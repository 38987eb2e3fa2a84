"""Reproduction evidence as a person reads it: the outcome scheme and kinds of evidence
(``scheme``), assessments folded into decisions and claims (``assessments``), and the one
read model every view uses: a work's passport (``passport``) and every work's answer for
the papers list (``outcomes``)."""
