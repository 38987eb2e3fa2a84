"""Statistics for comparisons and reproductions, each method declared with its citation and
the reference tool it equals (:mod:`.methods`).

Numbers only (numpy; scipy where a module says so, imported when a function needs it):
nothing here reads a store or builds a document. ``reprokg compare`` imports the modules it
uses without scipy, so the command stays fast; the tests hold every method to its
reference tool (R, scipy, pingouin, deepsig, rliable, autorank) or to its paper.
"""
